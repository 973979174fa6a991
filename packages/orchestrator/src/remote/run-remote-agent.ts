import { constants, copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { runAgent } from '../agents/agent-runner.js';
import type { AgentRecord } from '../agents/agent-store.js';
import type { Sandbox } from '@cairn/sandbox';
import type { CairnEvent } from '../api/events.js';
import { ReceiptSigner } from '../governance/receipt-signer.js';
import { wireProject } from '../project/open-project.js';
import { Project } from '../project/project.js';
import { CheckRefused } from '../run/check-adapter.js';
import { tokenHash } from './capability-token.js';
import type { RemoteJobData } from './remote-job.js';

/** Where and as whom a worker runs one job's agent. */
export interface RemoteRun {
  data: RemoteJobData;
  /** The snapshot of the coordinator's stable.db the job names, already hash-checked. */
  snapshotPath: string;
  /** A fresh folder for this attempt: it becomes a project holding only `.agentfs/`. */
  dir: string;
  /** The home of the job's project (previews, state). */
  home: string;
  /** The worker's enrolled Ed25519 secret key: every receipt is signed with it. */
  secret: Uint8Array;
  worker: string;
  /** The worker's sandbox, shared by its jobs. */
  sandbox?: Sandbox;
  /** Stops the agent (the worker leaves it): it ends failed here, and nothing of it is uploaded. */
  signal?: AbortSignal;
  onEvent?: (event: CairnEvent) => void;
}

/**
 * Runs a coordinator's agent here exactly as a local pool does: a project whose stable.db is the snapshot, the
 * agent's record under its own id with the governance the job carries (the caller has checked it against the
 * token), `runAgent` (overlay, sandbox, governed effects, repairs), with receipts signed by the worker's key and
 * the journal starting from the token's hash. A `run_check` is refused (the worker holds no working tree). Returns
 * the final record and where its database is; the caller uploads it and removes `dir`.
 */
export async function runRemoteAgent(run: RemoteRun): Promise<{ record: AgentRecord; database: string; tokenHash: string }> {
  mkdirSync(join(run.dir, '.agentfs'), { recursive: true, mode: 0o700 });
  // a clone where the file system shares blocks (btrfs, XFS), else a copy: the job's stable.db is its own
  copyFileSync(run.snapshotPath, join(run.dir, '.agentfs', 'stable.db'), constants.COPYFILE_FICLONE);
  const parts = wireProject(run.dir, {
    cairnHome: run.home,
    queue: 'none',
    poolSize: 1,
    signer: ReceiptSigner.ed25519(run.secret),
    ...(run.sandbox === undefined ? {} : { sandbox: run.sandbox }),
    runCheck: () => Promise.reject(new CheckRefused(checkRefusal(run.worker))),
  });
  const project = new Project(parts);
  const hashOfToken = tokenHash(run.data.token);
  const { id, ...spec } = run.data.agent;
  let record: AgentRecord;
  try {
    parts.core.store.insertQueued({ ...spec, id, tokenHash: hashOfToken, worker: run.worker, governance: run.data.governance });
    const unsubscribe = run.onEvent === undefined ? () => undefined : parts.bus.subscribe(run.onEvent);
    const stop = () => void parts.core.running.stop(id, (run.signal?.reason as Error | undefined)?.message ?? 'stopped');
    run.signal?.addEventListener('abort', stop);
    try {
      await runAgent(parts.core, id);
    } finally {
      run.signal?.removeEventListener('abort', stop);
      unsubscribe();
    }
    record = parts.core.store.require(id);
  } finally {
    await project.close();
  }
  return { record, database: parts.core.layout.overlayPath(id), tokenHash: hashOfToken };
}

/** Why `run_check` is refused on a worker: the program gets it as an error it can catch. */
export function checkRefusal(worker: string): string {
  return `checks do not run on worker ${worker}: it holds no working tree (the project's dependencies and tools are on the coordinator); the coordinator runs the automatic checks once the proposal reaches review`;
}
