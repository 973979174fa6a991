export type {
  AgentState,
  ProgramLang,
  ChangeStatus,
  ChangeInfo,
  AgentFailure,
  AgentLimits,
  AgentBudgets,
  SpawnOptions,
  AgentInfo,
  AgentFilter,
  ConflictHunkInfo,
  ConflictInfo,
  AppliedHow,
  AcceptOptions,
  AcceptOutcome,
  UndoOutcome,
  ReplayOutcome,
  CollectOutcome,
  SyncSummary,
  JournalRow,
  JournalView,
  EventOptions,
  CairnApi,
  FileProposal,
  InboxStatus,
  InboxOutcomeKind,
  InboxDiagnostic,
  InboxThread,
  InboxResult,
  InboxProcessOutcome,
  InboxLogView,
  ReviewOptions,
  RepairOutcome,
} from './types.js';
export { decisionCarriedOut } from './inbox/outcomes.js';
export { loadInboxSettings, type InboxSettings, type NamedReviewer, type CustomHandler } from './inbox/inbox-settings.js';
export { proposalOnText, type ProposalOnText } from './review/file-proposal.js';
export { EventBus, type CairnEvent, type CairnEventType } from './events.js';
export { CairnError, isCairnError, type CairnErrorCode } from './errors.js';
export { openProject, Project, DEFAULT_MODEL, DEFAULT_LIMITS, DEFAULT_BUDGETS, type ProjectOptions } from './project.js';
export { projectLayout, cairnHomeDir, ensurePrivateDir, type ProjectLayout } from './layout.js';
export { DaemonClient, connectDaemon } from './daemon/client.js';
export {
  startDaemon,
  readPidFile,
  daemonHoldsProject,
  CAIRN_VERSION,
  type RunningDaemon,
  type DaemonOptions,
  type DaemonPidFile,
} from './daemon/run-daemon.js';
export { socketAnswers } from './daemon/server.js';
export type { DaemonIdentity } from './daemon/routes.js';
export type { ProjectWatcher } from './sync/watcher.js';
export { loadProjectGovernance, type ManifestProblem, type ProjectGovernance } from './governance/project-manifest.js';
export { PROTECTED_READ_PATTERNS, PROTECTED_WRITE_PATTERNS } from './governance/default-manifest.js';
export { TOOL_NAMES, createModelClient, type ModelClient, type ModelFault } from './model/index.js';
export { processAlive } from './process-alive.js';
export { repairProject, RECOVERED_REASON } from './review/repair.js';
export { REPAIR_HINT } from './review/bin-damage.js';
export { readSkippedEntries } from './sync/skipped.js';
