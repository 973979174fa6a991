// The light entry of the orchestrator: what a command needs to find a project's daemon and talk to it, with
// the API's types, and nothing that opens a database, a sandbox or a model (those are in the main entry and
// `@cairn/orchestrator/project`). A `cairn` command that a daemon answers loads only this.

export type { CairnApi, EventOptions } from '@cairn/api';
export type { CairnEvent, CairnEventType } from '@cairn/api';
export { CairnError, isCairnError, type CairnErrorCode } from '@cairn/api';
export { CAIRN_VERSION } from '@cairn/api';
export { AGENT_STATES } from '@cairn/api';
export { describeCheckStatus } from '@cairn/api';
export type * from '@cairn/api';
export { connectDaemon, type DaemonClient } from './daemon/client.js';
export { readPidFile, type DaemonPidFile } from './daemon/pid-file.js';
export { socketAnswers } from './daemon/socket-probe.js';
export { decisionCarriedOut } from './inbox/outcomes.js';
export { cairnHomeDir, ensurePrivateDir, projectLayout, type ProjectLayout } from './workspace/layout.js';
export { processAlive } from '@cairn/agentfs/process-alive';
export { checkQueueUrl } from './remote/redis-connection.js';
export { checkWithoutWorkers, checkWorkerWait, loadQueueSettings, type QueueSettings } from './remote/queue-settings.js';
export { checkProjectSettings, SETTINGS_SECTIONS } from './project/project-settings.js';
