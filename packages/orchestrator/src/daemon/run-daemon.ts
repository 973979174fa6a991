import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { CairnError } from '../errors.js';
import type { CairnEvent } from '../events.js';
import { projectLayout } from '../layout.js';
import { openProject, type Project, type ProjectOptions } from '../project.js';
import type { SyncSummary } from '../types.js';
import { serveApi, socketAnswers, type DaemonServer } from './server.js';
import { watchSignals, type SignalWatcher } from './signals.js';
import type { ProjectWatcher } from '../sync/watcher.js';
import { watchInbox, type InboxWatcher } from '../inbox/inbox-watcher.js';

/** Cairn's version, as the daemon reports it. */
export const CAIRN_VERSION = '0.1.0';

/** A daemon running in this process. */
export interface RunningDaemon {
  project: Project;
  socketPath: string;
  sync: SyncSummary;
  /** Resolves once the daemon has stopped (after `stop`, `POST /shutdown`, or a signal the caller forwards). */
  stopped: Promise<void>;
  stop(): Promise<void>;
}

/** Options of `startDaemon`. */
export interface DaemonOptions extends Omit<ProjectOptions, 'queue'> {
  /** Every event while the daemon runs (the import's progress first). */
  onEvent?: (event: CairnEvent) => void;
  debounceMs?: number;
}

/** The pid file's content: who serves the project, where. */
export interface DaemonPidFile {
  pid: number;
  socket: string;
  root: string;
  startedAt: string;
}

/**
 * `cairn up`: one daemon per project. Opens the project with the whole queue, imports the working tree,
 * watches it, serves the API on the project's socket, processes file signals, and runs queued agents.
 * A second daemon is refused with where the first one is; a pid file or socket left by a killed one is
 * cleaned up.
 */
export async function startDaemon(root: string, options: DaemonOptions = {}): Promise<RunningDaemon> {
  const layout = projectLayout(root, options.cairnHome);
  const running = readPidFile(layout.pidPath);
  if (await socketAnswers(layout.socketPath)) {
    throw new CairnError(
      'CAIRN_DAEMON',
      `a daemon already serves ${layout.root}${running === undefined ? '' : ` (pid ${running.pid})`} on ${layout.socketPath}`,
      { hint: 'stop it with `cairn down`' },
    );
  }
  if (running !== undefined) rmSync(layout.pidPath, { force: true });
  const project = openProject(layout.root, { ...options, queue: 'all' });
  const events = options.onEvent === undefined ? undefined : forward(project, options.onEvent);
  let watcher: ProjectWatcher | undefined;
  let signals: SignalWatcher | undefined;
  let inbox: InboxWatcher | undefined;
  let server: DaemonServer | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await server?.close();
      await signals?.close();
      await inbox?.close();
      await watcher?.close();
      await project.close();
      await events?.return?.();
      rmSync(layout.pidPath, { force: true });
      resolveStopped();
    })());
  try {
    const sync = await project.sync();
    watcher = project.watch(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs });
    await watcher.ready;
    const startedAt = new Date().toISOString();
    server = await serveApi(
      project,
      layout.socketPath,
      { pid: process.pid, root: layout.root, version: CAIRN_VERSION, startedAt },
      () => void stop(),
    );
    mkdirSync(dirname(layout.pidPath), { recursive: true });
    const pidFile: DaemonPidFile = { pid: process.pid, socket: layout.socketPath, root: layout.root, startedAt };
    writeFileSync(layout.pidPath, JSON.stringify(pidFile) + '\n');
    signals = watchSignals(project, layout.signalsDir, (event) => project.notify(event));
    await signals.ready;
    inbox = watchInbox(project, layout.inboxDir, (error) =>
      project.notify({ type: 'error', time: new Date().toISOString(), code: 'inbox', message: error.message }),
    );
    await inbox.ready;
    project.startQueue();
    return { project, socketPath: layout.socketPath, sync, stopped, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The pid file of a project's daemon, if one was written. */
export function readPidFile(path: string): DaemonPidFile | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as DaemonPidFile;
  } catch {
    return undefined;
  }
}

function forward(project: Project, onEvent: (event: CairnEvent) => void): AsyncIterator<CairnEvent> {
  const iterator = project.events()[Symbol.asyncIterator]();
  void (async () => {
    for (;;) {
      const next = await iterator.next();
      if (next.done === true) return;
      onEvent(next.value);
    }
  })();
  return iterator;
}
