/** AgentFS databases: stores, overlays, the ledger, imports and diffs; then the project mirror's machinery. */

export type { AcceptConflict, AcceptOptions, AcceptResult, AppliedHow, ConflictReason, PreImage } from './accept.js';
export { acceptChanges, UNFORCEABLE, type UndoConflict, type UndoResult, undoAccept } from './accept.js';
export { AgentFS, type OpenOptions } from './agentfs.js';
export type { Change, ChangeStatus } from './changes.js';
export type { Clock, ConnectionOptions, Durability } from './connection.js';
export { createTables } from './create-tables.js';
// The project mirror's machinery: entry states and pre-images, accept and undo, write-back to the working tree,
// skipped entries, ignore rules and the git repository, mode bits, the journal store, cross-process locks.
export type { EntryState, StateSummary } from './entry-state.js';
export { hashContent, readDiskState, sameContent, sameState, stateLine, stateOf, summaryOf, tryReadDiskState } from './entry-state.js';
export { type WalkEntry, walkTree } from './entry-walk.js';
export { AgentFSError, type AgentFSErrorCode, isAgentFSError } from './errors.js';
export { type HeldLock, tryHoldExclusiveLock, withExclusiveLock } from './exclusive-lock.js';
export type { DirEntry, FileHandle, FileSystem, MkdirOptions, RenameOptions, RmOptions, WriteFileOptions } from './file-system.js';
export { findGitRepository, type GitRepository, TrackedPaths } from './git-repository.js';
export { ALWAYS_SKIPPED, IgnoreRules, isProtectedName, isProtectedPath } from './ignore-rules.js';
export { type ImportPathResult, importPath, importPaths, pruneIgnored } from './import-paths.js';
export type { ImportSummary } from './import-summary.js';
export { type ImportOptions, type ImportProgress, importTree, importTreeAsync, skippedEntries } from './import-tree.js';
export { type JournalTable, journalTableDdl, SqliteJournalStore } from './journal-store.js';
export { type JsonValue, KvStore } from './kv-store.js';
export { Ledger, type LedgerEntry } from './ledger.js';
export { materialize } from './materialize.js';
export { type EntryKind, S_IFDIR, S_IFLNK, S_IFMT, S_IFREG } from './mode.js';
export { Overlay } from './overlay.js';
export { OverlayFileSystem } from './overlay-fs.js';
export { normalizePath } from './path.js';
export { decodePreImages, encodePreImages } from './pre-images.js';
export { describeFsError, type SkippedEntry } from './skipped-entries.js';
export { Stats } from './stats.js';
export { StoreFileSystem } from './store-fs.js';
export { type ConflictHunk, type MergeOutcome, mergeText } from './three-way-merge.js';
export { type ToolCall, type ToolCallInput, ToolCalls } from './tool-calls.js';
export { formatChangeDiff, formatUnifiedDiff } from './unified-diff.js';
export { type WriteBackOptions, type WriteBackResult, writeBack } from './write-back.js';
