/** AgentFS databases: stores, overlays, the ledger, imports and diffs. Cairn's own machinery is in `./internal`. */
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
export { importTree, importTreeAsync, type ImportOptions, type ImportProgress, type ImportSummary } from './import-tree.js';
export { materialize } from './materialize.js';
export { normalizePath } from './path.js';
