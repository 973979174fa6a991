import type { CairnApi } from '@cairn/api';
import { describe, expect, it } from 'vitest';
import type { Project } from '../project/project.js';
import { ADD_MUL, decide, eachProjectAsAlice, proposal, threadOf } from '../test-support/inbox-fixture.js';
import { watchInbox } from './inbox-watcher.js';

let project: Project;

eachProjectAsAlice((opened) => {
  project = opened.project;
});

/** Polls until `done` holds, failing with `what` after a bound that only a hang reaches. */
async function until(what: string, done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('the inbox watcher', () => {
  it('reads every thread once at the start, then only the thread that was saved', async () => {
    const first = await proposal(project);
    const second = await proposal(project, ADD_MUL, 'add mul');
    const untouched = threadOf(project, first);
    const saved = threadOf(project, second);
    const passes: (readonly string[] | undefined)[] = [];
    const api = {
      processInbox: (options?: { threads?: readonly string[] }) => {
        passes.push(options?.threads);
        return project.processInbox(options);
      },
    } as unknown as CairnApi;
    const errors: Error[] = [];
    const watcher = watchInbox(api, project.layout.inboxDir, (error) => errors.push(error), 20);
    try {
      await until('the pass at the start', async () => passes.length === 1);
      expect(passes[0]).toBeUndefined();
      decide(project, saved, 'do:merge');
      await until(`agent ${second} accepted`, async () => (await project.agent(second)).state === 'accepted');
    } finally {
      await watcher.close();
    }
    expect(errors).toEqual([]);
    const afterSave = passes.slice(1);
    expect(afterSave.length).toBeGreaterThan(0);
    for (const threads of afterSave) expect(threads).not.toContain(untouched);
    expect(afterSave.every((threads) => threads !== undefined)).toBe(true);
    expect(afterSave.flat()).toContain(saved);
    expect((await project.agent(first)).state).toBe('reviewing');
  });
});
