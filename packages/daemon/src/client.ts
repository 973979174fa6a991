// `@cairn/daemon/client`, the light entry: what a command needs to find a project's daemon and talk to it, with
// the API's types, and nothing that opens a database, a sandbox or a model (those are in `@cairn/orchestrator`
// and `@cairn/orchestrator/project`). A `cairn` command that a daemon answers loads only this.

export { processAlive } from '@cairn/agentfs/process-alive';
export type * from '@cairn/api';
export type { CairnApi, CairnEvent, CairnEventType, EventOptions } from '@cairn/api';
export {
  AGENT_STATES,
  CAIRN_VERSION,
  CairnError,
  type CairnErrorCode,
  describeCheckStatus,
  isCairnError,
  SETTLED_STATES,
} from '@cairn/api';
export {
  cairnHomeDir,
  checkProjectSettings,
  decisionCarriedOut,
  ensurePrivateDir,
  type ProjectLayout,
  projectLayout,
  SETTINGS_SECTIONS,
} from '@cairn/orchestrator/surface';
export { checkQueueUrl, checkWithoutWorkers, checkWorkerWait, loadQueueSettings, type QueueSettings } from '@cairn/remote/settings';
export { type DaemonPidFile, readPidFile } from './pid-file.js';
export { connectDaemon, type DaemonClient } from './socket-client.js';
export { socketAnswers } from './socket-probe.js';
