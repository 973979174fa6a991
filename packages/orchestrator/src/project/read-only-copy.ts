import { constants, copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { ProjectLayout } from '@cairn/workspace';

/**
 * A project on a read-only file system, read from a copy of its databases: SQLite cannot open a WAL database
 * where it cannot make the database's `-shm` file, not even to read it. stable.db, bin.db and the receipt key
 * are copied to a folder in the temp folder at once, an agent's database when it is first read (each with its
 * `-wal` file, so nothing committed is missed); nothing is ever written back. `release` removes the copy.
 */
export function readOnlyCopy(layout: ProjectLayout): { layout: ProjectLayout; release(): void } {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-read-only-'));
  const copied = new Set<string>();
  const copy = (from: string): string => {
    const to = join(dir, basename(from));
    if (copied.has(from)) return to;
    copied.add(from);
    for (const suffix of ['', '-wal']) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix, constants.COPYFILE_FICLONE);
    return to;
  };
  const copyLayout: ProjectLayout = {
    ...layout,
    agentfsDir: dir,
    stablePath: copy(layout.stablePath),
    binPath: copy(layout.binPath),
    receiptKeyPath: copy(layout.receiptKeyPath),
    overlayPath: (agentId) => copy(layout.overlayPath(agentId)),
  };
  return { layout: copyLayout, release: () => rmSync(dir, { recursive: true, force: true }) };
}
