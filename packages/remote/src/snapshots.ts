import { createHash } from 'node:crypto';
import { createReadStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { AgentFS } from '@cairn/agentfs';

/** A content-addressed, immutable copy of stable.db: `<dir>/<sha256 hex>.db`. */
export interface Snapshot {
  hash: string;
  path: string;
}

/** The sha256 (hex) of a file's bytes. */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/**
 * Makes snapshots of stable.db for jobs, one per state of stable.db: agents queued while nothing changed share
 * one (a worker then fetches it once). `VACUUM INTO` writes a consistent copy while the watcher goes on.
 */
export class SnapshotMaker {
  private last: { version: string; snapshot: Snapshot } | undefined;
  private making: Promise<Snapshot> | undefined;

  constructor(
    private readonly stable: AgentFS,
    private readonly dir: string,
  ) {}

  /** The snapshot of stable.db as it is now. */
  async current(): Promise<Snapshot> {
    while (this.making !== undefined) await this.making.catch(() => undefined);
    const version = this.version();
    if (this.last?.version === version && existsSync(this.last.snapshot.path)) return this.last.snapshot;
    this.making = this.make();
    try {
      const snapshot = await this.making;
      this.last = { version, snapshot };
      return snapshot;
    } finally {
      this.making = undefined;
    }
  }

  /** The path of the snapshot named `hash`, if this coordinator made it. */
  pathOf(hash: string): string | undefined {
    if (!/^[0-9a-f]{64}$/.test(hash)) return undefined;
    const path = join(this.dir, `${hash}.db`);
    return existsSync(path) ? path : undefined;
  }

  private version(): string {
    // data_version moves with other connections' commits, total_changes with this connection's
    const data = this.stable.db.pragma('data_version', { simple: true }) as number;
    const own = (this.stable.db.prepare('SELECT total_changes() AS n').get() as { n: number }).n;
    return `${data}:${own}`;
  }

  private async make(): Promise<Snapshot> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const temp = join(this.dir, `.making-${process.pid}-${Date.now()}.db`);
    try {
      this.stable.db.prepare('VACUUM INTO ?').run(temp);
      const hash = await hashFile(temp);
      const path = join(this.dir, `${hash}.db`);
      if (existsSync(path)) rmSync(temp, { force: true });
      else renameSync(temp, path);
      return { hash, path };
    } finally {
      rmSync(temp, { force: true });
    }
  }
}
