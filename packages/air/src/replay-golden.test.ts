import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { AirRuntime, replayJournal } from './air-runtime.js';
import type { CborValue } from './cbor-value.js';
import { Journal, type JournalEntry, MemoryJournalStore } from './journal.js';
import { decodeNode, encodeNode } from './node-hash.js';
import { config, playFix } from './test-support/scenario.js';
import { fromHex, toHex } from './test-support/vectors.js';

const GOLDEN = fileURLToPath(new URL('../test/fixtures/replay-golden.json', import.meta.url));

interface Golden {
  stateHash: string;
  headHash: string;
  entries: string[];
}

/** The recorded scenario: two plan instances, each reading and writing a file, and one stray receipt. */
function record(): AirRuntime {
  const runtime = new AirRuntime(config());
  playFix(runtime, 'first');
  playFix(runtime, 'second');
  return runtime;
}

describe('replay or die: the golden journal', () => {
  it('the recorded run still produces the golden journal and state (UPDATE_GOLDEN=1 rewrites it)', () => {
    const runtime = record();
    const produced: Golden = {
      stateHash: runtime.stateHash(),
      headHash: runtime.journal.headHash!,
      entries: runtime.journal.entries().map((e) => toHex(encodeNode(e as unknown as CborValue))),
    };
    if (process.env.UPDATE_GOLDEN === '1') writeFileSync(GOLDEN, JSON.stringify(produced, null, 2) + '\n');
    expect(produced).toEqual(JSON.parse(readFileSync(GOLDEN, 'utf8')));
  });

  it('the golden journal replays to the golden state hash', () => {
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;
    const entries = golden.entries.map((hex) => decodeNode(fromHex(hex)) as unknown as JournalEntry);
    const store = new MemoryJournalStore();
    entries.forEach((e) => store.append(e));
    expect(Journal.open(store).ok).toBe(true);
    expect(replayJournal(config(), entries)).toMatchObject({ ok: true, stateHash: golden.stateHash });
  });

  it('a golden journal with one byte changed is refused', () => {
    const golden = JSON.parse(readFileSync(GOLDEN, 'utf8')) as Golden;
    const entries = golden.entries.map((hex) => decodeNode(fromHex(hex)) as unknown as JournalEntry);
    const victim = entries[3]!;
    entries[3] = { ...victim, body: { ...(victim.body as Record<string, CborValue>), status: 'error' } };
    const store = new MemoryJournalStore();
    entries.forEach((e) => store.append(e));
    expect(Journal.open(store)).toMatchObject({ ok: false, broken: { seq: 3 } });
  });
});
