export * from './coordinator.js';
export * from './queue-probe.js';
export * from './queue-settings.js';
export * from './redis-connection.js';
export { type RunningWorker, STOP_GRACE_MS, startWorker, type WorkerOptions } from './remote-worker.js';
export { loadSigningKey, type SigningKey } from './signing-key.js';
export * from './worker-bearer.js';
export * from './worker-endpoint.js';
export { workerRoster } from './worker-trust.js';
