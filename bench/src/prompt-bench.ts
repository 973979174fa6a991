import { join } from 'node:path';
import { openProject } from '@cairn/orchestrator';
import { programAnswer, type ScriptedRequest, startScriptedOllama } from '@cairn/orchestrator/testing';
import { generateTree } from './fixtures.js';
import { median, scaled, within } from './measure.js';
import type { BenchRow } from './storage-bench.js';

/** Characters per token of Cairn's estimate (an upper estimate: the model's tokenizer is not known). */
const CHARS_PER_TOKEN = 3;

/** Where `generateTree` puts file `i`. */
function pathOf(i: number): string {
  return `pkg${i % 10}/mod${Math.floor(i / 10) % 25}/part${Math.floor(i / 250) % 4}/file${i}.ts`;
}

/** A task naming three files of a tree of `count`: one by its path, two by their bare names. */
function taskFor(count: number, round: number): { task: string; named: string[] } {
  const pick = (k: number) => Math.floor(((round + 1) * 7919 * (k + 3)) % count);
  const [a, b, c] = [pick(0), pick(1), pick(2)];
  return {
    task: `rename value3 to total3 in ${pathOf(a)}, and do the same in file${b}.ts and file${c}.ts`,
    named: [pathOf(a), pathOf(b), pathOf(c)],
  };
}

/**
 * The model path's prompt on generated trees of 1k, 10k and 50k files: the time Cairn takes to build it (the
 * window asked of the server, the repo map, the prompt; as journaled with the prompt), the prompt's size
 * against the window it must fit, and the share of the files a task names that reach the prompt. The server
 * is a real HTTP server speaking Ollama's API with scripted answers.
 */
export async function benchPrompt(work: string): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const count of [1_000, 10_000, 50_000].map(scaled)) {
    const tree = `generated ${count >= 1000 ? `${count / 1000}k` : count}`;
    const root = join(work, `tree-${count}`);
    generateTree(root, count);
    const arrived: number[] = [];
    const server = await startScriptedOllama((_request: ScriptedRequest) => {
      arrived.push(performance.now());
      return programAnswer("await write_file('bench-out.txt', 'x');");
    });
    const project = openProject(root, { cairnHome: join(work, `home-${count}`), ollamaHost: server.host });
    try {
      await within(`the import of ${count} files`, project.sync());
      const times: number[] = [];
      const sizes: number[] = [];
      let named = 0;
      let found = 0;
      let fits = true;
      let window = 0;
      const rounds = scaled(6);
      for (let round = 0; round <= rounds; round++) {
        const { task, named: paths } = taskFor(count, round);
        const before = arrived.length;
        const agent = await project.spawn(task);
        await within(`agent ${agent.id} to settle`, project.wait(agent.id));
        const chat = server.requests.filter((r) => r.path === '/api/chat').at(-1);
        if (chat === undefined || arrived.length === before) throw new Error(`agent ${agent.id} never asked the model`);
        // round 0 warms up: TypeScript's parser loads once per process
        if (round === 0) continue;
        // Cairn times the building itself (window, repo map, prompt) and journals it with the prompt
        const built = (await project.journal(agent.id)).rows.find((row) => row.kind === 'prompt')?.detail ?? '';
        times.push(Number(/built in (\d+) ms/.exec(built)?.[1] ?? Number.NaN));
        const prompt = (chat.body.messages as { content: string }[]).map((m) => m.content).join('\n');
        const options = chat.body.options as { num_ctx: number; num_predict: number };
        const tokens = Math.ceil(prompt.length / CHARS_PER_TOKEN);
        window = options.num_ctx;
        sizes.push(tokens);
        if (tokens + options.num_predict > options.num_ctx) fits = false;
        named += paths.length;
        found += paths.filter((path) => prompt.includes(path)).length;
      }
      rows.push(
        { tree, measure: 'prompt built (window, repo map, prompt)', unit: 'ms', cairn: median(times), others: {}, goal: '≤ 50 ms' },
        {
          tree,
          measure: `prompt size (estimated tokens; window ${window}${fits ? ', every prompt fits with its answer' : ', SOME DID NOT FIT'})`,
          unit: 'tokens',
          cairn: Math.max(...sizes),
          others: {},
          goal: 'within the window',
        },
        {
          tree,
          measure: 'named files in the prompt',
          unit: '%',
          cairn: (100 * found) / Math.max(1, named),
          others: {},
          goal: 'all of them',
        },
      );
      if (!fits) throw new Error(`a prompt on ${tree} did not fit its window`);
    } finally {
      await project.close();
      await server.close();
    }
  }
  return rows;
}
