export * from './coordinator.js';
export * from './queue-probe.js';
export * from './queue-settings.js';
export * from './redis-connection.js';
export * from './worker-bearer.js';
export * from './worker-endpoint.js';
export { STOP_GRACE_MS, startWorker, type WorkerOptions, type RunningWorker } from './remote-worker.js';
export { loadSigningKey, type SigningKey } from './signing-key.js';
export { workerRoster } from './worker-trust.js';
