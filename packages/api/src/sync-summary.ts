/** An entry of the working tree the import leaves out. */
export interface SkippedEntryInfo {
  /** Project-relative path; bytes that are not UTF-8 are written `\xNN`. */
  path: string;
  /** Why: the name is not UTF-8, or what keeps it from being read (`permission denied`, …). */
  reason: string;
}

/** What a sync did. */
export interface SyncSummary {
  files: number;
  added: number;
  updated: number;
  removed: number;
  unchanged: number;
  bytes: number;
  ms: number;
  /** What the import left out: entries that cannot be read, names that are not UTF-8. */
  skipped?: SkippedEntryInfo[];
}
