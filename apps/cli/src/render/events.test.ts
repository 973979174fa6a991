import type { CairnEvent } from '@cairn/daemon/client';
import { describe, expect, it } from 'vitest';
import { createOutput } from '../output.js';
import { describeEvent } from './events.js';

const { paint } = createOutput({ json: false, debug: false, color: false });
const called = (fields: Partial<Extract<CairnEvent, { type: 'agent.tool-called' }>>): CairnEvent => ({
  type: 'agent.tool-called',
  time: '2026-11-27T00:00:00.000Z',
  agentId: 'a7f3',
  tool: 'read_file',
  ok: true,
  ...fields,
});

describe('a tool call as a line of cairn events', () => {
  it("names a search's pattern and where it looked, and any other call's path", () => {
    expect(describeEvent(called({ tool: 'search_files', path: '', pattern: 'src/**/*.ts' }), paint)).toBe(
      'a7f3 search_files "src/**/*.ts"',
    );
    expect(describeEvent(called({ tool: 'search_content', path: 'lib', pattern: 'TODO' }), paint)).toBe(
      'a7f3 search_content "TODO" in lib',
    );
    expect(describeEvent(called({ tool: 'list_dir', path: '' }), paint)).toBe('a7f3 list_dir .');
    expect(describeEvent(called({ path: 'src/a.ts', ok: false, message: 'no such file' }), paint)).toBe(
      'a7f3 read_file src/a.ts failed: no such file',
    );
    expect(describeEvent(called({ tool: 'ask_llm' }), paint)).toBe('a7f3 ask_llm');
  });
});

describe('a start as a line of cairn events', () => {
  it('tells a run started over after an interruption from the first, though both have its number', () => {
    const started = (again: boolean): CairnEvent => ({
      type: 'agent.started',
      time: '2026-11-27T00:00:00.000Z',
      agentId: 'a7f3',
      run: 1,
      ...(again ? { again: true as const } : {}),
    });
    expect(describeEvent(started(false), paint)).toBe('a7f3 started (run 1)');
    expect(describeEvent(started(true), paint)).toBe('a7f3 started again (run 1; the interrupted run was rolled back)');
  });
});

describe('a proposal as a line of cairn events', () => {
  it('counts the files it changes, not the folders it creates for them', () => {
    const submitted: CairnEvent = {
      type: 'agent.submitted',
      time: '2026-11-27T00:00:00.000Z',
      agentId: 'a7f3',
      summary: 'notes',
      changes: [
        { path: 'notes', status: 'added', kind: 'dir' },
        { path: 'notes/a.md', status: 'added', kind: 'file' },
        { path: 'notes/b.md', status: 'added', kind: 'file' },
        { path: 'README.md', status: 'modified', kind: 'file' },
      ],
    };
    expect(describeEvent(submitted, paint)).toBe('a7f3 submitted for review: notes (3 files)');
    const one: CairnEvent = {
      ...submitted,
      changes: [
        { path: 'docs', status: 'added', kind: 'dir' },
        { path: 'docs/x', status: 'added', kind: 'symlink' },
      ],
    };
    expect(describeEvent(one, paint)).toBe('a7f3 submitted for review: notes (1 file)');
  });
});
