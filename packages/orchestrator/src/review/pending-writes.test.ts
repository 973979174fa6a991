import { join } from 'node:path';
import { AgentFS, type EntryState, hashContent } from '@cairn/agentfs';
import { isCairnError } from '@cairn/api';
import { tempFolders } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';
import { PendingWrites } from './pending-writes.js';

const folders = tempFolders('cairn-pending-');

describe('the writes an accept owes the working tree', () => {
  it('keep what the disk must hold without its bytes, and read back rows that kept the bytes', () => {
    const stable = AgentFS.open(join(folders.make(), 'stable.db'));
    try {
      const pending = new PendingWrites(stable);
      const content = Buffer.from('what the human had\n');
      const hash = hashContent(content);
      // an accept passes the whole state it read, bytes and all
      const read: EntryState = { kind: 'file', mode: 0o100644, hash, content };
      pending.add({ opId: 'op1', agentId: 'a1', kind: 'accept', path: 'a.txt', expected: read });
      pending.add({ opId: 'op1', agentId: 'a1', kind: 'accept', path: 'gone', expected: { kind: 'absent' } });
      const row = stable.db.prepare("SELECT expected FROM cairn_pending_writes WHERE path = 'a.txt'").get() as { expected: Buffer };
      expect(JSON.parse(row.expected.toString())).toEqual({ kind: 'file', mode: 0o100644, hash });
      // a row an earlier version wrote: a whole pre-image document, the bytes in base64
      const earlier = {
        format: 'cairn-pre-images',
        version: 1,
        images: [
          { path: 'b.txt', before: { kind: 'file', mode: 0o100755, hash, content: content.toString('base64') }, after: { kind: 'absent' } },
        ],
      };
      stable.db
        .prepare(
          "INSERT INTO cairn_pending_writes (op_id, agent_id, kind, path, expected, image) VALUES ('op1', 'a1', 'accept', 'b.txt', ?, NULL)",
        )
        .run(Buffer.from(JSON.stringify(earlier)));
      expect(pending.all().map((write) => [write.path, write.expected])).toEqual([
        ['a.txt', { kind: 'file', mode: 0o100644, hash }],
        ['gone', { kind: 'absent' }],
        ['b.txt', { kind: 'file', mode: 0o100755, hash }],
      ]);
      stable.db.prepare("UPDATE cairn_pending_writes SET expected = ? WHERE path = 'gone'").run(Buffer.from('{"kind":"file"}'));
      let error: unknown;
      try {
        pending.all();
      } catch (caught) {
        error = caught;
      }
      expect(isCairnError(error, 'CAIRN_CORRUPT')).toBe(true);
      expect((error as Error).message).toBe("stable.db's record of a write owed to gone is damaged: its expected state has no mode");
    } finally {
      stable.close();
    }
  });
});
