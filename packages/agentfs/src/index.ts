/** AgentFS databases: stores, overlays, the ledger, imports and diffs; then the project mirror's machinery. */
export { AgentFS, type OpenOptions } from './agentfs.js';
export { Overlay } from './overlay.js';
export { Ledger, type LedgerEntry } from './ledger.js';
export { AgentFSError, isAgentFSError, type AgentFSErrorCode } from './errors.js';
export type { Clock, ConnectionOptions, Durability } from './connection.js';
export type { DirEntry, FileHandle, FileSystem, MkdirOptions, RenameOptions, RmOptions, WriteFileOptions } from './file-system.js';
export { Stats } from './stats.js';
export { StoreFileSystem } from './store-fs.js';
export { OverlayFileSystem } from './overlay-fs.js';
export { KvStore, type JsonValue } from './kv-store.js';
export { ToolCalls, type ToolCall, type ToolCallInput } from './tool-calls.js';
export type { Change, ChangeStatus } from './changes.js';
export { formatChangeDiff, formatUnifiedDiff } from './unified-diff.js';
export type { AcceptConflict, AcceptOptions, AcceptResult, AppliedHow, ConflictReason, PreImage } from './accept.js';
export { mergeText, type ConflictHunk, type MergeOutcome } from './three-way-merge.js';
export type { ImportSummary } from './import-summary.js';
export { importTree, importTreeAsync, type ImportOptions, type ImportProgress } from './import-tree.js';
export { materialize } from './materialize.js';
export { normalizePath } from './path.js';
export { walkTree, type WalkEntry } from './entry-walk.js';

// The project mirror's machinery: entry states and pre-images, accept and undo, write-back to the working tree,
// skipped entries, ignore rules and the git repository, mode bits, the journal store, cross-process locks.
export type { EntryState, StateSummary } from './entry-state.js';
export { stateOf, hashContent, summaryOf, sameState, stateLine, sameContent, readDiskState, tryReadDiskState } from './entry-state.js';
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
