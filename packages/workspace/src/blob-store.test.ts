import { AgentFS } from '@cairn/agentfs';
import { isCairnError } from '@cairn/api';
import { describe, expect, it } from 'vitest';
import { BlobStore, contentHash } from './blob-store.js';

function openBlobs(): { store: AgentFS; blobs: BlobStore } {
  const store = AgentFS.open(':memory:');
  return { store, blobs: new BlobStore(store) };
}

describe('the blob store', () => {
  it('gives back what was just kept, unaffected by later changes to the bytes it was given', () => {
    const { store, blobs } = openBlobs();
    const bytes = Buffer.from('const a = 1;\n');
    const hash = blobs.put(bytes);
    bytes.fill(0x21);
    expect(blobs.text(hash)).toBe('const a = 1;\n');
    const copy = blobs.get(hash);
    copy.fill(0x22);
    expect(blobs.get(hash).toString()).toBe('const a = 1;\n');
    store.close();
  });

  it('takes a hash its caller has just computed from the same bytes, and keeps the bytes under it', () => {
    const { store, blobs } = openBlobs();
    const bytes = Buffer.from('file\n');
    const hex = contentHash(bytes).slice('sha256:'.length);
    expect(blobs.put(bytes, hex)).toBe(contentHash(bytes));
    const other = openBlobs();
    expect(other.blobs.put('other')).toBe(contentHash(Buffer.from('other')));
    expect(store.db.prepare('SELECT count(*) AS n FROM cairn_blobs WHERE hash = ?').get(contentHash(bytes))).toEqual({ n: 1 });
    store.close();
    other.store.close();
  });

  it('reads older blobs from the database, checked against their hash', () => {
    const { store, blobs } = openBlobs();
    const first = blobs.put('first');
    blobs.put('second');
    expect(blobs.text(first)).toBe('first');
    store.db.prepare('UPDATE cairn_blobs SET bytes = ? WHERE hash = ?').run(Buffer.from('altered'), first);
    let error: unknown;
    try {
      blobs.get(first);
    } catch (caught) {
      error = caught;
    }
    expect(isCairnError(error, 'CAIRN_CORRUPT')).toBe(true);
    store.close();
  });
});
