// `@cairn/daemon/client`, the light entry: what a command needs to find a project's daemon and talk to it, with
// the API's types, and nothing that opens a database, a sandbox or a model (those are in `@cairn/orchestrator`
// and `@cairn/orchestrator/project`). A `cairn` command that a daemon answers loads only this.

export type { CairnApi, EventOptions } from '@cairn/api';
export type { CairnEvent, CairnEventType } from '@cairn/api';
export { CairnError, isCairnError, type CairnErrorCode } from '@cairn/api';
export { CAIRN_VERSION } from '@cairn/api';
export { AGENT_STATES, SETTLED_STATES } from '@cairn/api';
export { describeCheckStatus } from '@cairn/api';
export type * from '@cairn/api';
export { connectDaemon, type DaemonClient } from './socket-client.js';
export { readPidFile, type DaemonPidFile } from './pid-file.js';
export { socketAnswers } from './socket-probe.js';
export {
  cairnHomeDir,
  checkProjectSettings,
  decisionCarriedOut,
  ensurePrivateDir,
  projectLayout,
  SETTINGS_SECTIONS,
  type ProjectLayout,
} from '@cairn/orchestrator/surface';
export { processAlive } from '@cairn/agentfs/process-alive';
export { checkQueueUrl, checkWithoutWorkers, checkWorkerWait, loadQueueSettings, type QueueSettings } from '@cairn/remote/settings';
