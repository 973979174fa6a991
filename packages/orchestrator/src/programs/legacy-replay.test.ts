import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { openProject } from '../project/open-project.js';
import type { Project } from '../project/project.js';

/**
 * A project whose model-written agent (one refused program, a repair, a program that calls `ask_llm`) was
 * recorded by Cairn before prompts were fitted to a window: its journal has no `cairn/PromptBuilt@1` and its
 * prompt carried the file tree from `get_file_tree`.
 */
const FIXTURE = fileURLToPath(new URL('../test-support/fixtures/legacy-model-agent/', import.meta.url));

let base: string | undefined;
let project: Project | undefined;

afterEach(async () => {
  await project?.close();
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
  project = undefined;
  base = undefined;
});

describe('a journal written before prompts were fitted to a window', () => {
  it('replays without a model, its prompts rebuilt as they were', async () => {
    base = mkdtempSync(join(tmpdir(), 'cairn-legacy-'));
    const root = join(base, 'project');
    cpSync(FIXTURE, root, { recursive: true });
    cpSync(join(FIXTURE, 'agentfs'), join(root, '.agentfs'), { recursive: true });
    rmSync(join(root, 'agentfs'), { recursive: true, force: true });
    project = openProject(root, { cairnHome: join(base, 'home'), ollamaHost: 'http://127.0.0.1:9' });
    const agent = await project.agent('aa24');
    expect(agent).toMatchObject({ state: 'reviewing', origin: 'model', model: 'qwen2.5-coder:7b' });
    const outcome = await project.replay('aa24');
    expect(outcome).toMatchObject({ ok: true, runs: 2 });
    expect(outcome).not.toHaveProperty('divergence');
    const rows = (await project.journal('aa24')).rows;
    expect(rows.some((r) => r.kind === 'prompt')).toBe(false);
    expect(rows.filter((r) => r.effect === 'llm.generate')).toHaveLength(3);
  });
});
