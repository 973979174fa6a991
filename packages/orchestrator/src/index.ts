// The orchestrator's public entry: the API (in-process, or a daemon's), its types, and what the CLI and the
// Neovim bridge need to find, start and stop a project's daemon. Everything else stays inside the package.

// The API and what it speaks in.
export type { CairnApi, EventOptions } from './api/cairn-api.js';
export type { CairnEvent, CairnEventType } from './api/events.js';
export { CairnError, isCairnError, type CairnErrorCode } from './api/errors.js';
export { AGENT_STATES } from './api/types.js';
export { describeCheckStatus } from './api/check-words.js';
export { type CheckSpec, loadCheckSettings } from './checks/check-settings.js';
export { runSealed, type SealedRun, type SealedRunRequest, type CheckView, type ViewChoice } from './checks/sealed-run.js';
export type { ProposedFile } from './checks/proposed-file.js';
export { suggestChecks, type SuggestedCheck } from './checks/suggest-checks.js';
export { addChecksToConfig } from './checks/write-checks.js';
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
} from './api/types.js';

// A project opened in this process.
export { openProject, type ProjectOptions } from './project/open-project.js';
export type { Project } from './project/project.js';
export { repairProject } from './project/repair-project.js';

// A project's daemon: starting one, reaching one, and finding one that was killed.
export { readPidFile } from './daemon/pid-file.js';
export { startDaemon, type RunningDaemon, type DaemonOptions } from './daemon/run-daemon.js';
export { daemonHoldsProject } from './daemon/daemon-lock.js';
export { CAIRN_VERSION } from './api/version.js';
export { connectDaemon, type DaemonClient } from './daemon/client.js';
export { socketAnswers } from './daemon/socket-probe.js';
export { processAlive } from '@cairn/agentfs/process-alive';

// Where a project's files are, and what its settings say.
export { projectLayout, cairnHomeDir, ensurePrivateDir, type ProjectLayout } from './workspace/layout.js';
export { loadProjectGovernance, type ManifestProblem, type ProjectGovernance } from './governance/project-manifest.js';
export { PROTECTED_READ_PATTERNS, PROTECTED_WRITE_PATTERNS } from './governance/default-manifest.js';

// What a surface shows of proposals and decisions.
export { proposalOnText, type ProposalOnText } from './workspace/file-proposal.js';
export { decisionCarriedOut } from './inbox/outcomes.js';

// The model servers: the client (the demo asks whether one answers; `cairn models` lists what one has) and the project's settings.
export { createModelClient, type ModelClientOptions } from './model/model-client.js';
export type { ModelClient, ModelFault, ModelListing, ModelProvider } from './model/model-types.js';
export { loadModelSettings, type ModelSettings } from './model/model-settings.js';
export { modelClientOptionsFor } from './model/client-options.js';

// Workers on other machines: a coordinator's roster, and a worker fed by its queue.
export { STOP_GRACE_MS, startWorker, type WorkerOptions, type RunningWorker } from './remote/remote-worker.js';
export { loadSigningKey, type SigningKey } from './remote/signing-key.js';
export { checkQueueUrl } from './remote/redis-connection.js';
export { checkWithoutWorkers, checkWorkerWait, loadQueueSettings, type QueueSettings } from './remote/queue-settings.js';
export { workerRoster } from './remote/worker-trust.js';
export type { RemoteOptions } from './daemon/run-daemon.js';
