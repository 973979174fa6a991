/**
 * What only Cairn's orchestrator and tests use: entry states and pre-images, the accept and undo machinery,
 * write-back, skipped entries, ignore rules, mode bits, the journal store and cross-process locks.
 */
export type { EntryState, StateSummary } from './entry-state.js';
export { stateOf, hashContent, summaryOf, sameState, sameContent, readDiskState, tryReadDiskState } from './entry-state.js';
export { encodePreImages, decodePreImages } from './pre-images.js';
export { acceptChanges, undoAccept, type UndoConflict, type UndoResult, UNFORCEABLE } from './accept.js';
export { describeFsError, type SkippedEntry } from './skipped-entries.js';
export { IgnoreRules, ALWAYS_SKIPPED, isProtectedName, isProtectedPath } from './ignore-rules.js';
export { findGitRepository, TrackedPaths, type GitRepository } from './git-repository.js';
export { writeBack, type WriteBackOptions, type WriteBackResult } from './write-back.js';
export { S_IFMT, S_IFREG, S_IFDIR, S_IFLNK, type EntryKind } from './mode.js';
export { journalTableDdl, SqliteJournalStore, type JournalTable } from './journal-store.js';
export { createTables } from './create-tables.js';
export { withExclusiveLock, tryHoldExclusiveLock, type HeldLock } from './exclusive-lock.js';
export { skippedEntries } from './import-tree.js';
export { importPath, importPaths, pruneIgnored, type ImportPathResult } from './import-paths.js';
