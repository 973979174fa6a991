import type Database from 'better-sqlite3';

/**
 * Stores `data` as chunks 0, 1, … of `ino`, each `chunkSize` bytes but the last, through `insertChunk`
 * (`INSERT … (ino, chunk_index, data)`); returns the byte size. An empty file has no chunk.
 */
export function insertChunks(insertChunk: Database.Statement, chunkSize: number, ino: number, data: Uint8Array): number {
  const size = data.byteLength;
  const bytes = Buffer.from(data.buffer, data.byteOffset, size);
  for (let index = 0, offset = 0; offset < size; index++, offset += chunkSize) {
    insertChunk.run(ino, index, bytes.subarray(offset, Math.min(size, offset + chunkSize)));
  }
  return size;
}

/** The whole content of `ino`, its chunks in order through `chunks` (`SELECT data … ORDER BY chunk_index`, plucked). */
export function readChunks(chunks: Database.Statement, ino: number): Buffer {
  const all = chunks.all(ino) as Buffer[];
  if (all.length === 1) return all[0]!;
  return Buffer.concat(all);
}

/**
 * `length` bytes of `ino` from `offset` (fewer past `size`, the file's size), read from only the chunks that hold
 * them through `chunkRange` (`SELECT chunk_index, data … WHERE ino = ? AND chunk_index BETWEEN ? AND ?`).
 */
export function readChunkRange(
  chunkRange: Database.Statement,
  chunkSize: number,
  ino: number,
  offset: number,
  length: number,
  size: number,
): Buffer {
  const end = Math.min(size, offset + length);
  if (offset >= end) return Buffer.alloc(0);
  const first = Math.floor(offset / chunkSize);
  const last = Math.floor((end - 1) / chunkSize);
  const rows = chunkRange.all(ino, first, last) as { chunk_index: number; data: Buffer }[];
  const out = Buffer.alloc(end - offset);
  for (const row of rows) {
    const chunkStart = row.chunk_index * chunkSize;
    const from = Math.max(offset, chunkStart);
    const to = Math.min(end, chunkStart + row.data.length);
    if (to > from) row.data.copy(out, from - offset, from - chunkStart, to - chunkStart);
  }
  return out;
}
