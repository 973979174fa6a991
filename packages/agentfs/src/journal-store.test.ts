import { join } from 'node:path';
import { Journal } from '@cairn/air';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { SqliteJournalStore } from './journal-store.js';
import { makeTempDir } from './test-support/temp-dir.js';

describe('SQLite journal store', () => {
  it('keeps a hash-chained journal across reopening, and refuses one edited on disk', () => {
    const path = join(makeTempDir(), 'agent.db');
    const store = AgentFS.open(path);
    const journal = Journal.create(new SqliteJournalStore(store.db));
    journal.append('PlanStarted', { plan_name: 'cairn/agent@1', input: { path: 'src/a.ts' } });
    journal.append('EffectQueued', { intent_hash: 'sha256:' + 'a'.repeat(64), n: 2n ** 60n, bytes: new Uint8Array([1, 2]) });
    store.close();

    const again = AgentFS.open(path);
    const reopened = Journal.open(new SqliteJournalStore(again.db));
    expect(reopened.ok).toBe(true);
    if (reopened.ok) {
      expect(reopened.journal.entries().map((e) => e.kind)).toEqual(['PlanStarted', 'EffectQueued']);
      expect(reopened.journal.append('PlanEnded', { status: 'ok' }).seq).toBe(2);
    }
    again.db.prepare(`UPDATE cairn_journal SET kind = 'PlanEnded' WHERE seq = 1`).run();
    expect(Journal.open(new SqliteJournalStore(again.db))).toMatchObject({
      ok: false,
      broken: { seq: 1, reason: 'entry 1 was changed after it was written' },
    });
    again.close();
  });

  it('refuses a journal with an entry repeated on disk (the chain, not an index, catches it)', () => {
    const path = join(makeTempDir(), 'agent.db');
    const store = AgentFS.open(path);
    const journal = Journal.create(new SqliteJournalStore(store.db));
    journal.append('PlanStarted', { plan_name: 'cairn/agent@1', input: {} });
    journal.append('PlanEnded', { status: 'ok' });
    store.db
      .prepare('INSERT INTO cairn_journal (seq, kind, body, prev, hash) SELECT 2, kind, body, prev, hash FROM cairn_journal WHERE seq = 1')
      .run();
    expect(Journal.open(new SqliteJournalStore(store.db))).toMatchObject({ ok: false, broken: { seq: 2 } });
    store.close();
  });
});
