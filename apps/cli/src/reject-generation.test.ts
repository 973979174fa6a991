import { startScriptedOllama } from '@cairn/orchestrator/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf } from './test-support/run-cairn.js';

let project: CliProject;

beforeEach(() => {
  project = makeCliProject({ 'src/greet.js': 'export function greet(name) {\n  var text = "Hello, " + name;\n  return text;\n}\n' });
});

afterEach(() => project.cleanup());

async function until(test: () => boolean): Promise<void> {
  while (!test()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('cairn reject while another cairn streams the program', () => {
  it('stops the generation of the process that runs the agent (no daemon): the server sees the connection close', async () => {
    const slow = { kind: 'answer' as const, text: `\`\`\`js\n${"log('still writing');\n".repeat(200)}\`\`\`\n`, chunkDelayMs: 100 };
    const ollama = await startScriptedOllama([slow]);
    try {
      const env = { OLLAMA_HOST: ollama.host };
      const spawning = project.run(['spawn', '--wait', 'use const in src/greet.js', '--json'], { env });
      await until(() => ollama.requests.some((r) => r.path === '/api/chat'));
      const listed = resultOf(await project.run(['ls', '--json'], { env })).agents as { id: string; state: string }[];
      expect(listed).toMatchObject([{ state: 'running' }]);
      const rejected = await project.run(['reject', listed[0]!.id, '--reason', 'not now'], { env });
      expect(rejected.code, rejected.stdout + rejected.stderr).toBe(0);
      const spawned = await spawning;
      expect(resultOf(spawned).agent).toMatchObject({ state: 'failed' });
      expect(ollama.requests.find((r) => r.path === '/api/chat')!.closedEarly).toBe(true);
      const after = resultOf(await project.run(['ls', '--json'], { env })).agents as { id: string; state: string }[];
      expect(after).toMatchObject([{ state: 'rejected' }]);
    } finally {
      await ollama.close();
    }
  });
});
