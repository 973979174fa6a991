import { statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentFS } from './agentfs.js';
import { AgentFSError } from './errors.js';
import type { PlannedEntry } from './tree-scan.js';

/** What a store holds per byte it imports: SQLite's pages hold a little more than their data. */
const STORE_BYTES_PER_BYTE = 1.1;
/** Room for the write-ahead log, which holds a batch (or a bulk import's pages) until they are copied into the database. */
const LOG_ROOM_BYTES = 64 * 1024 * 1024;
/** Room for the rest: journals, the stat cache, the skipped list. */
const SLACK_BYTES = 1024 * 1024;
/** Imports smaller than this are not checked: a full disk stops them with SQLite's own error, and saves stay cheap. */
const CHECKED_FROM_BYTES = 1024 * 1024;

/**
 * Refuses an import its disk has no room for, before it writes anything: one that fills the disk would fail
 * anyway, and leave it full, since SQLite cannot hand back its log's space without room to finish writing it.
 * What it counts is the bytes of the files to read (not those the stat cache only re-checks), with room for
 * SQLite's pages and its log. An import under a megabyte, an in-memory store, or a disk that cannot say how much
 * room it has, is not checked.
 */
export function checkRoomFor(store: AgentFS, planned: readonly PlannedEntry[]): void {
  if (store.db.memory) return;
  let bytes = 0;
  for (const entry of planned) if (entry.kind === 'file' && !entry.recheck) bytes += entry.stats.size;
  if (bytes < CHECKED_FROM_BYTES) return;
  const dir = dirname(store.db.name);
  let free: number;
  try {
    const disk = statfsSync(dir);
    // root may use the blocks a file system keeps back for it
    free = (process.getuid?.() === 0 ? disk.bfree : disk.bavail) * disk.bsize;
  } catch {
    return;
  }
  const needed = Math.ceil(bytes * STORE_BYTES_PER_BYTE) + Math.min(bytes, LOG_ROOM_BYTES) + SLACK_BYTES;
  if (needed <= free) return;
  throw new AgentFSError(
    'ENOSPC',
    'import',
    dir,
    `importing ${inWords(bytes)} of files needs about ${inWords(needed)} free beside ${dir}, and its disk has ${inWords(free)}`,
  );
}

/** A size in words: `3.2 MB`, `108 MB`, `1.5 GB`. */
function inWords(bytes: number): string {
  let value = bytes / (1024 * 1024);
  let unit = 0;
  while (value >= 1024 && unit < SIZE_UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${SIZE_UNITS[unit]}`;
}

const SIZE_UNITS = ['MB', 'GB', 'TB'] as const;
