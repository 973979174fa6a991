import type { SkippedEntry } from './skipped-entries.js';

/** What an import did; `skipped` lists what it left out (unreadable, or a name that is not UTF-8). */
export interface ImportSummary {
  files: number;
  dirs: number;
  added: number;
  updated: number;
  unchanged: number;
  removed: number;
  /** Bytes read of the files whose stat had changed. */
  bytes: number;
  /** Files whose stat matched but were compared byte for byte again, the stat cache not vouching for them (changed too recently, or never cached). */
  rechecked: number;
  skipped: SkippedEntry[];
}

/** A summary of nothing done yet. */
export function emptySummary(): ImportSummary {
  return { files: 0, dirs: 0, added: 0, updated: 0, unchanged: 0, removed: 0, bytes: 0, rechecked: 0, skipped: [] };
}
