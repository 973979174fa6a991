import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { type HeldLock, tryHoldExclusiveLock } from '@cairn/agentfs/exclusive-lock';
import type { CairnEvent, SyncSummary } from '@cairn/api';
import { CAIRN_VERSION, CairnError } from '@cairn/api';
import type { Project } from '@cairn/orchestrator';
import {
  checkProjectSettings,
  ensurePrivateDir,
  openProject,
  type ProjectLayout,
  type ProjectOptions,
  projectLayout,
} from '@cairn/orchestrator';
import type { ProjectCore, ProjectWatcher } from '@cairn/orchestrator/engine';
import { type InboxWatcher, watchInbox } from '@cairn/orchestrator/engine';
import type { Coordinator, WithoutWorkers, WorkerEndpoint } from '@cairn/remote';
import { type DaemonPidFile, readPidFile, writePidFile } from './pid-file.js';
import { guardProject, type ProjectGuard } from './project-guard.js';
import { type DaemonServer, serveApi } from './server.js';
import { type SignalWatcher, watchSignals } from './signals.js';

/** A daemon running in this process. */
export interface RunningDaemon {
  project: Project;
  socketPath: string;
  sync: SyncSummary;
  /** Resolves once the daemon has stopped (after `stop`, `POST /shutdown`, or a signal the caller forwards). */
  stopped: Promise<void>;
  stop(): Promise<void>;
  /** With `remote`: the endpoint workers reach and the bearer token they present. */
  workers?: { url?: string; bearer: string; queue: string };
}

/** A daemon that feeds workers: the queue, and where it serves snapshots and takes uploads. */
export interface RemoteOptions {
  /** `redis://HOST:PORT` */
  queue: string;
  /** `HOST:PORT` of the endpoint for workers (none: workers cannot fetch snapshots from this daemon). */
  serveWorkers?: string;
  /** How long a capability token is valid (ms). */
  tokenTtlMs?: number;
  /** How long a queued agent waits, no trusted worker connected, before the daemon says so (ms). */
  workerWaitMs?: number;
  /** What becomes of it then: left queued (`wait`), or run by the daemon itself (`run-here`). */
  withoutWorkers?: WithoutWorkers;
}

/** Options of `startDaemon`. */
export interface DaemonOptions extends Omit<ProjectOptions, 'queue'> {
  /** Every event while the daemon runs (the import's progress first). */
  onEvent?: (event: CairnEvent) => void;
  debounceMs?: number;
  /** Feed queued agents to workers through this queue instead of the local pool. */
  remote?: RemoteOptions;
}

/**
 * `cairn up`: one daemon per project. Opens the project with the whole queue, imports the working tree,
 * watches it, serves the API on the project's socket, processes file signals, and runs queued agents.
 * A second daemon is refused with where the first one is; a pid file or socket left by a killed one is
 * cleaned up.
 */
export async function startDaemon(root: string, options: DaemonOptions = {}): Promise<RunningDaemon> {
  const layout = projectLayout(root, options.cairnHome);
  // a wrong setting is refused before the daemon starts, not found the day it is read
  checkProjectSettings(layout);
  const lock = await claimDaemon(layout);
  const startedAt = new Date().toISOString();
  const pidFile: DaemonPidFile = { pid: process.pid, socket: layout.socketPath, root: layout.root, startedAt };
  let project: Project | undefined;
  let events: AsyncIterator<CairnEvent> | undefined;
  let watcher: ProjectWatcher | undefined;
  let signals: SignalWatcher | undefined;
  let inbox: InboxWatcher | undefined;
  let guard: ProjectGuard | undefined;
  let server: DaemonServer | undefined;
  let coordinator: Coordinator | undefined;
  let endpoint: WorkerEndpoint | undefined;
  let resolveStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (resolveStopped = resolve));
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      try {
        guard?.close();
        // nothing more starts: an agent a coordinator leaves on its queue stays there for the next daemon
        project?.stopQueue();
        await server?.close();
        await endpoint?.close();
        await coordinator?.stop();
        await signals?.close();
        await inbox?.close();
        await watcher?.close();
        await project?.close();
        await events?.return?.();
      } finally {
        if (readPidFile(layout.pidPath)?.pid === process.pid) rmSync(layout.pidPath, { force: true });
        lock.release();
        resolveStopped();
      }
    })());
  try {
    writePidFile(layout.pidPath, pidFile);
    const remote = options.remote;
    // the queue's code (BullMQ, ioredis) is loaded only by a daemon that feeds workers
    const remoteCode = remote === undefined ? undefined : await loadRemoteCode();
    if (remote !== undefined) await remoteCode?.probeQueue(remote.queue);
    const dispatch =
      remote === undefined || remoteCode === undefined
        ? {}
        : {
            dispatch: (core: ProjectCore) =>
              (coordinator = new remoteCode.Coordinator(core, {
                queue: remote.queue,
                ...(remote.tokenTtlMs === undefined ? {} : { tokenTtlMs: remote.tokenTtlMs }),
                ...(remote.workerWaitMs === undefined ? {} : { workerWaitMs: remote.workerWaitMs }),
                ...(remote.withoutWorkers === undefined ? {} : { withoutWorkers: remote.withoutWorkers }),
              })),
          };
    project = openProject(layout.root, { ...options, queue: 'all', ...dispatch });
    if (options.onEvent !== undefined) events = forward(project, options.onEvent);
    // the watcher imports the tree, watching each folder as the import reaches it
    watcher = project.watch(options.debounceMs === undefined ? {} : { debounceMs: options.debounceMs });
    const sync = await watcher.ready;
    const open = project;
    server = await serveApi(
      open,
      layout.socketPath,
      { pid: process.pid, root: layout.root, version: CAIRN_VERSION, startedAt },
      () => void stop(),
    );
    signals = watchSignals(open, layout.signalsDir, (event) => open.notify(event));
    await signals.ready;
    inbox = watchInbox(open, layout.inboxDir, (error) =>
      open.notify({ type: 'error', time: new Date().toISOString(), code: 'inbox', message: error.message }),
    );
    await inbox.ready;
    let workers: RunningDaemon['workers'];
    if (remote !== undefined && remoteCode !== undefined && coordinator !== undefined) {
      const tokenPath = join(remoteCode.remoteDirs({ layout }).root, 'worker-token');
      const bearer = remoteCode.loadBearer(tokenPath);
      const serving = coordinator;
      if (remote.serveWorkers !== undefined)
        endpoint = await remoteCode.serveWorkers(remote.serveWorkers, bearer, {
          info: serving.info,
          untrusted: (name) => serving.roster.untrusted(name),
          admitUpload: (jobId, run, claims, body, from) => serving.admitUpload(jobId, run, claims, body, from),
          snapshotPath: (hash) => serving.snapshots.pathOf(hash),
          uploadsDir: serving.uploadsDir,
        });
      workers = { bearer, queue: remote.queue, ...(endpoint === undefined ? {} : { url: endpoint.url }) };
      if (endpoint !== undefined)
        serving.setWorkerCommand(
          `cairn worker --queue ${remoteCode.redactedUrl(remote.queue)} --coordinator ${endpoint.url} --token "$(cat ${tokenPath})"`,
        );
      coordinator.resume();
    }
    // a project folder (or its databases) moved or deleted while the daemon runs: the daemon stops, and says so in its log
    guard = guardProject(layout, (why) => {
      open.notify({ type: 'error', time: new Date().toISOString(), code: 'project-gone', message: `${why}: the daemon stops` });
      void stop();
    });
    open.startQueue();
    // the first request finds the routes' code loaded, and the first agent its sandbox booted: both started just
    // after the daemon says it serves, never delaying that
    const serving = server;
    setImmediate(() => serving.warm());
    if (remote === undefined)
      setImmediate(() => {
        try {
          open.prepareToRun();
        } catch {
          // stopped already: nothing will run
        }
      });
    return { project: open, socketPath: layout.socketPath, sync, stopped, stop, ...(workers === undefined ? {} : { workers }) };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** What a daemon that feeds workers runs beside the project: the coordinator, its endpoint and its queue's probe. */
async function loadRemoteCode() {
  const [{ Coordinator, remoteDirs }, { serveWorkers }, { loadBearer }, { probeQueue, redactedUrl }] = await Promise.all([
    import('@cairn/remote'),
    import('@cairn/remote'),
    import('@cairn/remote'),
    import('@cairn/remote'),
  ]);
  return { Coordinator, remoteDirs, serveWorkers, loadBearer, probeQueue, redactedUrl };
}

/**
 * Claims the project for this process's daemon: a lock in the project's home that the operating system lets
 * go when the process ends, so of daemons started at once exactly one wins, before any of them opens a
 * database, and a daemon that was killed leaves nothing that blocks the next.
 */
async function claimDaemon(layout: ProjectLayout): Promise<HeldLock> {
  ensurePrivateDir(layout.home);
  const lockPath = join(layout.home, 'daemon.lock');
  // a probe (`daemonHoldsProject`) holds the lock for an instant; a daemon holds it for good
  for (let tries = 0; tries < 10; tries++) {
    const lock = tryHoldExclusiveLock(lockPath);
    if (lock !== undefined) return lock;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const running = readPidFile(layout.pidPath);
  throw new CairnError('CAIRN_DAEMON', `a daemon already serves ${layout.root}${running === undefined ? '' : ` (pid ${running.pid})`}`, {
    hint: 'stop it with `cairn down`',
  });
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
