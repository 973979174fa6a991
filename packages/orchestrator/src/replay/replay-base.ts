import { AgentFS } from '@cairn/agentfs';
import type { TouchedLog } from '@cairn/workspace';

/**
 * The starting point of a stretch of replayed runs, as an in-memory store: for every path those runs
 * touched, what it held before the first of them touched it. Nothing else of the project is needed:
 * reads are answered from the recording, and writes only meet what this holds.
 */
export function buildReplayBase(touched: TouchedLog, runs: readonly number[]): AgentFS {
  const base = AgentFS.open(':memory:');
  const seen = new Set<string>();
  const entries = runs
    .flatMap((run) => touched.entries(run))
    .filter((entry) => {
      if (seen.has(entry.path)) return false;
      seen.add(entry.path);
      return true;
    });
  base.transaction(() => {
    for (const entry of [...entries].sort((a, b) => (a.path < b.path ? -1 : 1))) {
      const path = '/' + entry.path;
      const state = touched.stateOf(entry);
      if (state.kind === 'absent') continue;
      if (state.kind === 'dir') base.fs.mkdir(path, { recursive: true, mode: state.mode & 0o7777 });
      else if (state.kind === 'file') base.fs.writeFile(path, state.content, { mode: state.mode & 0o7777 });
      else {
        const slash = path.lastIndexOf('/');
        if (slash > 0) base.fs.mkdir(path.slice(0, slash), { recursive: true });
        base.fs.symlink(state.content.toString('utf8'), path);
      }
    }
  });
  return base;
}
