import { join } from 'node:path';
import { afterEach } from 'vitest';
import { AgentFS } from '../agentfs.js';
import { Overlay } from '../overlay.js';
import { makeTempDir } from './temp-dir.js';

const open: { close(): void }[] = [];

afterEach(() => {
  for (const store of open.splice(0).reverse()) store.close();
});

/** A store in a real SQLite file in a temp directory, closed after the test. */
export function openTempStore(name = 'stable.db', dir = makeTempDir()): AgentFS {
  const store = AgentFS.open(join(dir, name));
  open.push(store);
  return store;
}

/** A base store and an overlay on it, both real files in one temp directory. */
export function openTempOverlay(): { base: AgentFS; overlay: Overlay; dir: string } {
  const dir = makeTempDir();
  const base = openTempStore('stable.db', dir);
  const overlay = Overlay.open(join(dir, 'agent-1.db'), base);
  open.push(overlay);
  return { base, overlay, dir };
}
