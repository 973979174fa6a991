import { connectDaemon, openProject, projectLayout, type CairnApi, type Project, type ProjectOptions } from '@cairn/orchestrator';

/** The API a command uses: the running daemon's, or the project opened in this process. */
export interface Connection {
  api: CairnApi;
  /** True when a daemon answers: agents run there, and its watcher keeps stable.db current. */
  daemon: boolean;
  /** The in-process project, when there is no daemon. */
  project?: Project;
  close(): Promise<void>;
}

/**
 * Connects to the project's daemon if one answers, else opens the project here; `runs: false` when this
 * process must not run the agents it creates (`cairn queue` leaves them for `cairn up`).
 */
export async function connect(root: string, options: { runs?: boolean } = {}): Promise<Connection> {
  const layout = projectLayout(root);
  const client = await connectDaemon(layout.root, layout.socketPath);
  if (client !== undefined) return { api: client, daemon: true, close: () => client.close() };
  const scope: ProjectOptions['queue'] = options.runs === false ? 'none' : 'own';
  const project = openProject(layout.root, { queue: scope });
  return { api: project, daemon: false, project, close: () => project.close() };
}
