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
export type { EntryState } from './entry-state.js';
export { stateOf, hashContent, sameState, sameContent, readDiskState, tryReadDiskState } from './entry-state.js';
export { encodePreImages, decodePreImages } from './pre-images.js';
export type { Change, ChangeStatus } from './changes.js';
export { formatChangeDiff, formatUnifiedDiff } from './unified-diff.js';
export { mergeText, type ConflictHunk, type MergeOutcome } from './three-way-merge.js';
export {
  acceptChanges,
  undoAccept,
  type AcceptConflict,
  type AcceptOptions,
  type AcceptResult,
  type AppliedHow,
  type ConflictReason,
  type PreImage,
  type UndoConflict,
  type UndoResult,
  UNFORCEABLE,
} from './accept.js';
export {
  importTree,
  importPath,
  skippedEntries,
  type ImportOptions,
  type ImportProgress,
  type ImportSummary,
  type ImportPathResult,
} from './import-tree.js';
export { describeFsError, type SkippedEntry } from './skipped-entries.js';
export { IgnoreRules, ALWAYS_SKIPPED, isProtectedName, isProtectedPath } from './ignore-rules.js';
export { writeBack, type WriteBackOptions, type WriteBackResult } from './write-back.js';
export { materialize } from './materialize.js';
export { normalizePath } from './path.js';
export { S_IFMT, S_IFREG, S_IFDIR, S_IFLNK, type EntryKind } from './mode.js';
export { SqliteJournalStore, type JournalTable } from './journal-store.js';
export { withExclusiveLock, tryHoldExclusiveLock, type HeldLock } from './exclusive-lock.js';
