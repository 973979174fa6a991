// `@cairn/remote/settings`: the queue settings and the check of a queue's URL, for a command that only reads
// them (nothing of BullMQ or Redis is loaded).

export { checkWithoutWorkers, checkWorkerWait, loadQueueSettings, type QueueSettings } from './queue-settings.js';
export { checkQueueUrl } from './redis-connection.js';
