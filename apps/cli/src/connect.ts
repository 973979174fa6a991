import { type CairnApi, connectDaemon, isCairnError, projectLayout, type SyncSummary } from '@cairn/daemon/client';
import type { Project, ProjectOptions } from '@cairn/orchestrator';
import { onReadOnlyFileSystem } from './project-root.js';
import { describeSystemError } from './system-error.js';

/** The API a command uses: the running daemon's, or the project opened in this process. */
export interface Connection {
  api: CairnApi;
  /** True when a daemon answers: agents run there, and its watcher keeps stable.db current. */
  daemon: boolean;
  /** The in-process project, when there is no daemon. */
  project?: Project;
  /** What bringing stable.db up to date did, when this process did it (`sync`, without a daemon). */
  synced?: SyncSummary;
  /** Why stable.db could not be brought up to date (`sync: 'or-warn'`): the command goes on without it. */
  unsynced?: { message: string; hint?: string | undefined };
  close(): Promise<void>;
}

/**
 * Connects to the project's daemon if one answers, else opens the project here; `runs: false` when this
 * process must run nothing of its own accord — neither the agents it creates (`cairn queue` leaves them for
 * `cairn up`) nor the checks a sync makes stale (the commands that show proposals) — `runs: true` when it is
 * about to run an agent (its sandbox then starts at once); `sync` when the command needs stable.db current and
 * no daemon's watcher keeps it so (`or-warn`: a command that only shows goes on when Cairn refuses the sync).
 */
export async function connect(root: string, options: { runs?: boolean; sync?: boolean | 'or-warn' } = {}): Promise<Connection> {
  const layout = projectLayout(root);
  const client = await connectDaemon(layout.root, layout.socketPath, { pidPath: layout.pidPath });
  if (client !== undefined) return { api: client, daemon: true, close: () => client.close() };
  const scope: ProjectOptions['queue'] = options.runs === false ? 'none' : 'own';
  // the project's databases and agents are loaded only when no daemon answers
  const { openProject } = await import('@cairn/orchestrator/project');
  // a project on a read-only file system is read as it is (only commands that read get this far with one)
  if (onReadOnlyFileSystem(layout.root)) {
    const project = openProject(layout.root, { readOnly: true });
    return { api: project, daemon: false, project, close: () => project.close() };
  }
  const project = openProject(layout.root, { queue: scope });
  const close = () => project.close();
  // the agent's sandbox boots while this process brings stable.db up to date
  if (options.runs === true) project.prepareToRun();
  if (options.sync === undefined || options.sync === false) return { api: project, daemon: false, project, close };
  try {
    return { api: project, daemon: false, project, close, ...(await syncHere(project, options.sync)) };
  } catch (error) {
    await close();
    throw error;
  }
}

/** Brings stable.db up to date now, for a connection opened without `sync`, as `sync: 'or-warn'` does (nothing with a daemon). */
export async function catchUp(conn: Connection): Promise<void> {
  if (conn.project !== undefined) Object.assign(conn, await syncHere(conn.project, 'or-warn'));
}

async function syncHere(project: Project, mode: true | 'or-warn'): Promise<Pick<Connection, 'synced' | 'unsynced'>> {
  try {
    return { synced: await project.sync() };
  } catch (error) {
    const words = mode !== 'or-warn' ? undefined : isCairnError(error) ? error : describeSystemError(error);
    if (words === undefined) throw error;
    return { unsynced: { message: words.message, hint: words.hint } };
  }
}
