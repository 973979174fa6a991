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
} from './api/types.js';
export { AGENT_STATES } from './api/types.js';
export type { CairnApi, EventOptions } from './api/cairn-api.js';
export { decisionCarriedOut } from './inbox/outcomes.js';
export { loadInboxSettings, type InboxSettings, type NamedReviewer, type CustomHandler } from './inbox/inbox-settings.js';
export { proposalOnText, type ProposalOnText } from './workspace/file-proposal.js';
export type { CairnEvent, CairnEventType } from './api/events.js';
export { CairnError, isCairnError, type CairnErrorCode } from './api/errors.js';
export { openProject, type ProjectOptions } from './project/open-project.js';
export type { Project } from './project/project.js';
export { DEFAULT_MODEL, DEFAULT_LIMITS, DEFAULT_BUDGETS } from './api/spawn-options.js';
export { projectLayout, cairnHomeDir, ensurePrivateDir, type ProjectLayout } from './workspace/layout.js';
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
export { createModelClient, type ModelClient, type ModelFault } from './model/ollama-client.js';
export { TOOL_NAMES } from './tools/tool-table.js';
export { processAlive } from './workspace/process-alive.js';
export { repairProject, RECOVERED_REASON } from './project/repair-project.js';
export { REPAIR_HINT } from './agents/bin-damage.js';
export { readSkippedEntries } from './sync/skipped.js';
