import type { Command } from 'commander';
import type { ProjectUse } from './project-root.js';
import type { Action } from './run-command.js';

/** A command's function, loaded when the command runs: `--help` and `--version` load none. */
export type Load = () => Promise<Action>;

/** The command modules, each loaded on first use. */
export const commands = {
  airCheck: () => import('./commands/air-check.js').then((m) => m.airCheckCommand as Action),
  demo: () => import('./commands/demo.js').then((m) => m.demoCommand as Action),
  checks: () => import('./commands/checks.js').then((m) => m.checksCommand as Action),
  checksSuggest: () => import('./commands/checks.js').then((m) => m.checksSuggestCommand as Action),
  diff: () => import('./commands/diff.js').then((m) => m.diffCommand as Action),
  down: () => import('./commands/down.js').then((m) => m.downCommand as Action),
  events: () => import('./commands/events.js').then((m) => m.eventsCommand as Action),
  gc: () => import('./commands/gc.js').then((m) => m.gcCommand as Action),
  list: () => import('./commands/list.js').then((m) => m.listCommand as Action),
  log: () => import('./commands/log.js').then((m) => m.logCommand as Action),
  mcp: () => import('./commands/mcp.js').then((m) => m.mcpCommand as Action),
  mcpConfig: () => import('./commands/mcp.js').then((m) => m.mcpConfigCommand as Action),
  models: () => import('./commands/models.js').then((m) => m.modelsCommand as Action),
  accept: () => import('./commands/review.js').then((m) => m.acceptCommand as Action),
  reject: () => import('./commands/review.js').then((m) => m.rejectCommand as Action),
  replay: () => import('./commands/review.js').then((m) => m.replayCommand as Action),
  restore: () => import('./commands/review.js').then((m) => m.restoreCommand as Action),
  undo: () => import('./commands/review.js').then((m) => m.undoCommand as Action),
  spawn: () => import('./commands/spawn.js').then((m) => m.spawnCommand as Action),
  execSpawn: () => import('./commands/exec.js').then((m) => m.execSpawnCommand as Action),
  runAgain: () => import('./commands/exec.js').then((m) => m.runAgainCommand as Action),
  status: () => import('./commands/status.js').then((m) => m.statusCommand as Action),
  up: () => import('./commands/up.js').then((m) => m.upCommand as Action),
  inbox: () => import('./commands/inbox.js').then((m) => m.inboxCommand as Action),
  inboxLog: () => import('./commands/inbox.js').then((m) => m.inboxLogCommand as Action),
  inboxProcess: () => import('./commands/inbox.js').then((m) => m.inboxProcessCommand as Action),
  review: () => import('./commands/reviewer.js').then((m) => m.reviewCommand as Action),
  repair: () => import('./commands/repair.js').then((m) => m.repairCommand as Action),
  worker: () => import('./commands/worker.js').then((m) => m.workerCommand as Action),
  workerEnroll: () => import('./commands/worker.js').then((m) => m.workerEnrollCommand as Action),
  workerTrust: () => import('./commands/worker.js').then((m) => m.workerTrustCommand as Action),
} satisfies Record<string, Load>;

/**
 * How each command uses its project (by command path); any other command needs a project already started
 * and creates nothing when there is none. `none`: the command makes its own (the demo).
 */
export const PROJECT_USE: Record<string, ProjectUse | 'none'> = {
  up: 'create',
  spawn: 'create',
  mcp: 'create',
  'mcp config': 'any',
  queue: 'create',
  down: 'any',
  'air check': 'any',
  'checks suggest': 'any',
  models: 'any',
  demo: 'none',
  worker: 'none',
  'worker enroll': 'none',
};

/**
 * The commands that write agents' databases themselves (by command path): every agent's, or the one their first
 * argument names. Their project check makes sure those are writable before anything changes; other commands
 * leave agents' databases to the daemon or do not write them.
 */
export const AGENT_WRITES: Record<string, 'all' | 'named'> = {
  up: 'all',
  'inbox process': 'all',
  repair: 'all',
  accept: 'named',
  undo: 'named',
  reject: 'named',
  restore: 'named',
};

/**
 * The commands that only read (by command path): they read a project on a read-only file system as it is, and a
 * stdout that fails ends them at once (see output-loss.ts); any other command finishes its work first.
 */
export const READS_ONLY = new Set(['list-agents', 'status', 'diff', 'log', 'events', 'inbox list', 'inbox log', 'models', 'air check']);

/** The command's path below `cairn` (`spawn`, `inbox list`, `air check`). */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c !== null && c.parent !== null; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}
