import { createWriteStream, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CairnError } from '@cairn/api';
import { hashFile } from './snapshots.js';
import { type CoordinatorLink, WORKER_WIRE, workerRequest } from './worker-wire.js';

/** How many times a snapshot is fetched before a corrupted download fails the job. */
const FETCHES = 2;

/**
 * A worker's snapshots, by hash: each is fetched from the coordinator once (ten agents on one base share one
 * download) and kept only when its bytes hash to its name.
 */
export class SnapshotCache {
  private readonly fetching = new Map<string, Promise<string>>();

  constructor(
    private readonly dir: string,
    private readonly coordinator: CoordinatorLink,
  ) {}

  /** The path of the snapshot `hash`, fetched if this worker does not hold it yet. */
  async get(hash: string): Promise<string> {
    const path = join(this.dir, `${hash}.db`);
    if (existsSync(path)) return path;
    let fetching = this.fetching.get(hash);
    if (fetching === undefined) {
      fetching = this.fetch(hash, path).finally(() => this.fetching.delete(hash));
      this.fetching.set(hash, fetching);
    }
    return fetching;
  }

  private async fetch(hash: string, path: string): Promise<string> {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    let got = '';
    for (let fetch = 1; fetch <= FETCHES; fetch++) {
      const temp = `${path}.${process.pid}.${fetch}.part`;
      try {
        const request = workerRequest(this.coordinator, WORKER_WIRE.snapshot, [hash]);
        const response = await globalThis.fetch(request.url, request.init);
        if (!response.ok || response.body === null)
          throw new CairnError(
            'CAIRN_REMOTE',
            `the coordinator answered ${response.status} for snapshot ${hash}: ${(await response.text()).slice(0, 200)}`,
          );
        await pipeline(Readable.fromWeb(response.body as never), createWriteStream(temp, { mode: 0o600 }));
        got = await hashFile(temp);
        if (got === hash) {
          renameSync(temp, path);
          return path;
        }
      } finally {
        rmSync(temp, { force: true });
      }
    }
    throw new CairnError('CAIRN_CORRUPT', `the snapshot ${hash} arrived corrupted ${FETCHES} times (its bytes hash to ${got})`, {
      hint: 'check the network between this worker and the coordinator',
    });
  }
}
