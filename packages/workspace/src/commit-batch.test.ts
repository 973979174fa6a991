import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentFS, Overlay, SqliteJournalStore } from '@cairn/agentfs';
import { Journal } from '@cairn/air';
import { isCairnError } from '@cairn/api';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentWorkspace } from './agent-workspace.js';
import { BATCH_LIMIT, BATCH_WINDOW_MS, CommitBatch } from './commit-batch.js';
import { appendCairnEntry, SCHEMAS } from './journal-entries.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A stable.db and an agent's overlay on disk, and a second connection to the agent's database that reads what was committed. */
function openAgent(): { stable: AgentFS; path: string; reader: () => Overlay } {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-batch-'));
  dirs.push(dir);
  const stable = AgentFS.open(join(dir, 'stable.db'));
  const path = join(dir, 'agent-a1.db');
  return { stable, path, reader: () => Overlay.open(path, stable) };
}

function committedFiles(open: () => Overlay): string[] {
  const overlay = open();
  try {
    return overlay.changes().map((c) => c.path);
  } finally {
    overlay.close();
  }
}

describe('transactions committed together', () => {
  it('commit when flushed, each whole: other connections see none of them before, all of them after', () => {
    const { stable, path, reader } = openAgent();
    const overlay = Overlay.open(path, stable);
    const batch = new CommitBatch(overlay.upper, () => undefined);
    batch.run(() => overlay.fs.writeFile('/a.txt', 'a\n'));
    batch.run(() => overlay.fs.writeFile('/b.txt', 'b\n'));
    expect(committedFiles(reader)).toEqual([]);
    expect(overlay.changes().map((c) => c.path)).toEqual(['a.txt', 'b.txt']);
    expect(batch.flush()).toBe(true);
    expect(committedFiles(reader)).toEqual(['a.txt', 'b.txt']);
    overlay.close();
    stable.close();
  });

  it('undo a transaction that throws, and nothing else of the batch', () => {
    const { stable, path, reader } = openAgent();
    const overlay = Overlay.open(path, stable);
    const batch = new CommitBatch(overlay.upper, () => undefined);
    batch.run(() => overlay.fs.writeFile('/kept.txt', 'kept\n'));
    expect(() =>
      batch.run(() => {
        overlay.fs.writeFile('/undone.txt', 'undone\n');
        throw new Error('the call failed');
      }),
    ).toThrow('the call failed');
    batch.run(() => overlay.fs.writeFile('/later.txt', 'later\n'));
    batch.flush();
    expect(committedFiles(reader)).toEqual(['kept.txt', 'later.txt']);
    overlay.close();
    stable.close();
  });

  it(`commit by themselves ${BATCH_WINDOW_MS} ms after the first, and after ${BATCH_LIMIT} transactions`, async () => {
    const { stable, path, reader } = openAgent();
    const overlay = Overlay.open(path, stable);
    let commits = 0;
    const batch = new CommitBatch(overlay.upper, () => commits++);
    batch.run(() => overlay.fs.writeFile('/timed.txt', 'timed\n'));
    await new Promise((resolve) => setTimeout(resolve, BATCH_WINDOW_MS * 5));
    expect(commits).toBe(1);
    expect(committedFiles(reader)).toEqual(['timed.txt']);
    for (let i = 0; i < BATCH_LIMIT; i++) batch.run(() => overlay.fs.writeFile(`/n${i}.txt`, `${i}\n`));
    expect(commits).toBe(2);
    expect(committedFiles(reader)).toHaveLength(BATCH_LIMIT + 1);
    overlay.close();
    stable.close();
  });

  it('refuse every later transaction once a batch was lost, and keep nothing of it', () => {
    const { stable, path, reader } = openAgent();
    const overlay = Overlay.open(path, stable);
    const batch = new CommitBatch(overlay.upper, () => undefined);
    batch.run(() => overlay.fs.writeFile('/first.txt', 'first\n'));
    batch.flush();
    batch.run(() => overlay.fs.writeFile('/lost.txt', 'lost\n'));
    overlay.upper.db.exec('ROLLBACK');
    expect(batch.flush()).toBe(false);
    let refused: unknown;
    try {
      batch.run(() => overlay.fs.writeFile('/after.txt', 'after\n'));
    } catch (error) {
      refused = error;
    }
    expect(isCairnError(refused, 'CAIRN_INTERNAL')).toBe(true);
    expect(committedFiles(reader)).toEqual(['first.txt']);
    overlay.close();
    stable.close();
  });
});

describe("an agent's workspace", () => {
  it('commits its journal before it gives its head, so another process can open the journal up to that head', () => {
    const { stable, path } = openAgent();
    const workspace = AgentWorkspace.open('a1', path, stable);
    for (let i = 0; i < 3; i++)
      workspace.transaction(() => appendCairnEntry(workspace.journal, SCHEMAS.toolCalled, { tool: 'log', i }, 'agent'));
    const head = workspace.head()!;
    expect(head.length).toBe(3);
    const other = AgentFS.open(path);
    expect(Journal.open(new SqliteJournalStore(other.db), { expectedHead: head as { hash: `sha256:${string}`; length: number } }).ok).toBe(
      true,
    );
    other.close();
    workspace.close();
    stable.close();
  });

  it('gives the head that was committed when a batch could not be', () => {
    const { stable, path } = openAgent();
    const workspace = AgentWorkspace.open('a1', path, stable);
    workspace.transaction(() => appendCairnEntry(workspace.journal, SCHEMAS.toolCalled, { tool: 'log' }, 'agent'));
    const committed = workspace.head();
    workspace.transaction(() => appendCairnEntry(workspace.journal, SCHEMAS.toolCalled, { tool: 'log', lost: true }, 'agent'));
    workspace.overlay.upper.db.exec('ROLLBACK');
    expect(workspace.head()).toEqual(committed);
    workspace.close();
    stable.close();
  });

  it('commits what is pending when it closes', () => {
    const { stable, path, reader } = openAgent();
    const workspace = AgentWorkspace.open('a1', path, stable);
    workspace.transaction(() => workspace.overlay.fs.writeFile('/closing.txt', 'x\n'));
    workspace.close();
    expect(committedFiles(reader)).toEqual(['closing.txt']);
    stable.close();
  });
});
