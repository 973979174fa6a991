export * from './check-results.js';
export * from './check-settings.js';
export { isHiddenFromChecks } from './hidden-files.js';
export * from './proposed-file.js';
export * from './sealed-run.js';
export * from './suggest-checks.js';
export * from './writable-view.js';
export * from './write-checks.js';
