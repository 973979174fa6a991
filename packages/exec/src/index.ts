export * from './agent-layer.js';
export * from './exec-capture.js';
export * from './exec-paths.js';
export * from './exec-run.js';
export * from './install-hints.js';
