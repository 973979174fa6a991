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
export type { Project } from './project/project.js';
export { repairProject } from './project/repair-project.js';

// A project's daemon: starting one, reaching one, and finding one that was killed.
export { readPidFile } from './daemon/pid-file.js';
export { startDaemon, type RunningDaemon, type DaemonOptions } from './daemon/run-daemon.js';
export { daemonHoldsProject } from './daemon/daemon-lock.js';
export { CAIRN_VERSION } from '@cairn/api';
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
export { createModelClient, type ModelClientOptions } from '@cairn/model';
export type { ModelClient, ModelFault, ModelListing, ModelProvider } from '@cairn/model';
export { loadModelSettings, type ModelSettings } from '@cairn/model';
export { modelClientOptionsFor } from '@cairn/model';

// Workers on other machines: a coordinator's roster, and a worker fed by its queue.
export { STOP_GRACE_MS, startWorker, type WorkerOptions, type RunningWorker } from './remote/remote-worker.js';
export { loadSigningKey, type SigningKey } from './remote/signing-key.js';
export { checkQueueUrl } from './remote/redis-connection.js';
export { checkWithoutWorkers, checkWorkerWait, loadQueueSettings, type QueueSettings } from './remote/queue-settings.js';
export { workerRoster } from './remote/worker-trust.js';
export type { RemoteOptions } from './daemon/run-daemon.js';
