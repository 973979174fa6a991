// The orchestrator's public entry: the API (in-process, or a daemon's), its types, and what the CLI and the
// Neovim bridge need to find, start and stop a project's daemon. Everything else stays inside the package.

// The API and what it speaks in.
export type { CairnApi, EventOptions } from '@cairn/api';
export type { CairnEvent, CairnEventType } from '@cairn/api';
export { CairnError, isCairnError, type CairnErrorCode } from '@cairn/api';
export { AGENT_STATES } from '@cairn/api';
export { describeCheckStatus } from '@cairn/api';
export { type CheckSpec, loadCheckSettings } from '@cairn/checks';
export { runSealed, type SealedRun, type SealedRunRequest, type CheckView, type ViewChoice } from '@cairn/checks';
export type { ProposedFile } from '@cairn/checks';
export { suggestChecks, type SuggestedCheck } from '@cairn/checks';
export { addChecksToConfig } from '@cairn/checks';
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
  ChangeInfo,
  ChangeStatus,
  CheckOutput,
  CheckResultInfo,
  CheckStatus,
  CollectOutcome,
  ConflictHunkInfo,
  ConflictInfo,
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

// A project opened in this process.
export { openProject, type ProjectOptions } from './project/open-project.js';
export { Project } from './project/project.js';
export { repairProject } from './project/repair-project.js';

// The version, and whether a process still runs.
export { CAIRN_VERSION } from '@cairn/api';
export { processAlive } from '@cairn/agentfs/process-alive';

// Where a project's files are, and what its settings say.
export { projectLayout, cairnHomeDir, ensurePrivateDir, type ProjectLayout } from './workspace/layout.js';
export { loadProjectGovernance, type ManifestProblem, type ProjectGovernance } from './governance/project-manifest.js';
export { PROTECTED_READ_PATTERNS, PROTECTED_WRITE_PATTERNS } from './governance/default-manifest.js';

// What a surface shows of proposals and decisions.
export { proposalOnText, type ProposalOnText } from './workspace/file-proposal.js';
export { decisionCarriedOut } from './inbox/outcomes.js';

// The model servers: the client (the demo asks whether one answers; `cairn models` lists what one has) and the project's settings.
export { createModelClient, type ModelClientOptions } from '@cairn/model';
export type { ModelClient, ModelFault, ModelListing, ModelProvider } from '@cairn/model';
export { loadModelSettings, type ModelSettings } from '@cairn/model';
export { modelClientOptionsFor } from '@cairn/model';

// What the coordinator, the workers and the daemon (@cairn/remote, @cairn/daemon) build on.
export { runAgent } from './agents/agent-runner.js';
export type { AgentPatch, AgentRecord } from './agents/agent-store.js';
export type { ProjectCore } from './agents/project-core.js';
export { compileGovernance } from './governance/compile.js';
export { governanceFor, startingGovernance } from './governance/project-governance.js';
export { ReceiptSigner } from './governance/receipt-signer.js';
export { type InboxWatcher, watchInbox } from './inbox/inbox-watcher.js';
export { contentDigest } from './programs/program-run.js';
export { type AgentDispatch, wireProject } from './project/open-project.js';
export { SETTINGS_SECTIONS, checkProjectSettings } from './project/project-settings.js';
export type { ProjectParts } from './project/project.js';
export { replayRecorded } from './replay/replay.js';
export { CheckRefused } from './run/check-adapter.js';
export type { ProjectWatcher } from './sync/watcher.js';
export { AgentWorkspace } from './workspace/agent-workspace.js';
export { SCHEMAS, cairnEntry } from './workspace/journal-entries.js';
export { spentFromJournal } from './workspace/journal-spend.js';
export { changeInfoOf } from './workspace/change-info.js';
