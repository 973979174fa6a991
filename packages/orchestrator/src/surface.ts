// `@cairn/orchestrator/surface`: what a surface needs of a project without opening it (where its files are,
// whether its settings hold, how a decision reads), and nothing that opens a database, a sandbox or a model.
export { cairnHomeDir, ensurePrivateDir, type ProjectLayout, projectLayout } from '@cairn/workspace/layout';
export { decisionCarriedOut } from './inbox/outcomes.js';
export { checkProjectSettings, SETTINGS_SECTIONS } from './project/project-settings.js';
