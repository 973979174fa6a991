import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentFS, stateOf } from '@cairn/agentfs';
import { afterEach, describe, expect, it } from 'vitest';
import { importAffected, inStableTransaction } from './stable-transaction.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setUp(): { root: string; stable: AgentFS } {
  const base = mkdtempSync(join(tmpdir(), 'cairn-stable-'));
  dirs.push(base);
  const root = join(base, 'project');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.txt'), 'human\n');
  return { root, stable: AgentFS.open(join(base, 'stable.db')) };
}

const contentOf = (stable: AgentFS, path: string) => {
  const state = stateOf(stable.fs, path);
  return state.kind === 'file' ? state.content.toString() : state.kind;
};

describe('one stable.db transaction for an accept', () => {
  it('imports the working tree and writes in one commit', () => {
    const { root, stable } = setUp();
    inStableTransaction(stable, () => {
      importAffected(stable, root, ['src/a.txt']);
      expect(contentOf(stable, '/src/a.txt')).toBe('human\n');
      stable.fs.writeFile('/src/b.txt', 'agent\n');
    });
    const other = AgentFS.open(stable.path);
    expect([contentOf(other, '/src/a.txt'), contentOf(other, '/src/b.txt')]).toEqual(['human\n', 'agent\n']);
    other.close();
    stable.close();
  });

  it('keeps nothing of itself when it fails, and reads the store as it was afterwards', () => {
    const { root, stable } = setUp();
    stable.fs.mkdir('/src');
    stable.fs.writeFile('/src/a.txt', 'before\n');
    expect(() =>
      inStableTransaction(stable, () => {
        importAffected(stable, root, ['src/a.txt']);
        stable.fs.writeFile('/src/new.txt', 'new\n');
        throw new Error('the accept failed');
      }),
    ).toThrow('the accept failed');
    expect(stable.db.inTransaction).toBe(false);
    expect(contentOf(stable, '/src/a.txt')).toBe('before\n');
    expect(contentOf(stable, '/src/new.txt')).toBe('absent');
    stable.close();
  });

  it('joins a transaction already open', () => {
    const { root, stable } = setUp();
    stable.transaction(() => {
      inStableTransaction(stable, () => importAffected(stable, root, ['src/a.txt']));
      expect(stable.db.inTransaction).toBe(true);
    });
    expect(contentOf(stable, '/src/a.txt')).toBe('human\n');
    stable.close();
  });
});
