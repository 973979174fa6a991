// The orchestrator's public entry: the API (in-process, or a daemon's), its types, and what the CLI and the
// Neovim bridge need to find, start and stop a project's daemon. Everything else stays inside the package.

export { processAlive } from '@cairn/agentfs/process-alive';
// The API and what it speaks in.
export type {
  AcceptItem,
  AcceptManyOptions,
  AcceptManyOutcome,
  AcceptOptions,
  AcceptOutcome,
  AgentBudgets,
  AgentFailure,
  AgentFilter,
  AgentInfo,
  AgentLimits,
  AgentState,
  AppliedHow,
  CairnApi,
  CairnEvent,
  CairnEventType,
  ChangeInfo,
  ChangeStatus,
  CheckOutput,
  CheckResultInfo,
  CheckStatus,
  CollectOutcome,
  ConflictHunkInfo,
  ConflictInfo,
  EventOptions,
  FileProposal,
  InboxDiagnostic,
  InboxLogView,
  InboxOutcomeKind,
  InboxProcessOutcome,
  InboxResult,
  InboxStatus,
  InboxThread,
  JournalRow,
  JournalView,
  ModelOptions,
  NonEmpty,
  ProgramLang,
  RepairOutcome,
  ReplayDivergence,
  ReplayOutcome,
  ReviewOptions,
  SkippedEntryInfo,
  SpawnOptions,
  SyncSummary,
  UndoConflictInfo,
  UndoOutcome,
} from '@cairn/api';
// The version, and whether a process still runs.
export { AGENT_STATES, CAIRN_VERSION, CairnError, type CairnErrorCode, describeCheckStatus, isCairnError } from '@cairn/api';
export {
  loadProjectGovernance,
  type ManifestProblem,
  PROTECTED_READ_PATTERNS,
  PROTECTED_WRITE_PATTERNS,
  type ProjectGovernance,
} from '@cairn/governance';
// Where a project's files are, and what its settings say.
// What a surface shows of proposals and decisions.
export { cairnHomeDir, ensurePrivateDir, type ProjectLayout, type ProposalOnText, projectLayout, proposalOnText } from '@cairn/workspace';
// The environments of MCP clients, and the tools they call.
export { type AgentSession, type CommandAnswer, type SessionAnswer, SessionOpener } from './agents/agent-session.js';
export { decisionCarriedOut } from './inbox/outcomes.js';
// A project opened in this process.
export { openProject, type ProjectOptions } from './project/open-project.js';
export { Project } from './project/project.js';
export { checkProjectSettings, SETTINGS_SECTIONS } from './project/project-settings.js';
export { repairProject } from './project/repair-project.js';
export type { ToolParam } from './tools/tool-spec.js';
export { authorTools, type ToolDescription } from './tools/tool-table.js';

// The building blocks of the coordinator, the workers and the daemon are at `@cairn/orchestrator/engine`.
