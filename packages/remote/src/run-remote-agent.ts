import { constants, copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { CairnEvent } from '@cairn/api';
import { ReceiptSigner } from '@cairn/governance';
import { Project } from '@cairn/orchestrator';
import type { AgentRecord, ProjectParts } from '@cairn/orchestrator/engine';
import { CheckRefused, runAgent, wireProject } from '@cairn/orchestrator/engine';
import type { Sandbox } from '@cairn/sandbox';
import { tokenHash } from './capability-token.js';
import type { RemoteJobData } from './remote-job.js';

/** As whom a worker runs its jobs' agents. */
export interface WorkerIdentity {
  /** The worker's enrolled Ed25519 secret key: every receipt is signed with it. */
  secret: Uint8Array;
  worker: string;
  /** The home of the worker's projects (previews, state). */
  home: string;
  /** The worker's sandbox, shared by its jobs. */
  sandbox?: Sandbox;
}

/** One job's agent on a worker. */
export interface RemoteRun {
  data: RemoteJobData;
  /** Stops the agent (the worker leaves it): it ends failed here, and nothing of it is uploaded. */
  signal?: AbortSignal;
  onEvent?: (event: CairnEvent) => void;
}

/** A finished remote agent: its final record and its database, readable until `release` forgets them. */
export interface RemoteOutcome {
  record: AgentRecord;
  database: string;
  tokenHash: string;
  release(): void;
}

interface SnapshotProject {
  dir: string;
  parts: ProjectParts;
  project: Project;
  /** The agents running in it now. */
  agents: Set<string>;
}

/**
 * A worker's projects, one per snapshot of the coordinator's stable.db (under `root`, which is the worker's
 * own): the jobs on one snapshot run side by side in one project, as a local pool runs its agents, so the
 * snapshot is copied and opened once, not once per job. A project no job uses is closed and removed once a job
 * on another snapshot starts (the coordinator's tree moved on). A second run of an agent that still runs here
 * (its job was lost from Redis and put on the queue again) gets a project of its own.
 */
export class SnapshotProjects {
  private readonly open = new Map<string, SnapshotProject>();
  private made = 0;

  constructor(
    private readonly root: string,
    private readonly identity: WorkerIdentity,
  ) {
    rmSync(root, { recursive: true, force: true });
  }

  /**
   * Runs a coordinator's agent exactly as a local pool does: in the project of its snapshot (`snapshotPath`,
   * already hash-checked), under its own id with the governance the job carries (the caller has checked it
   * against the token), by `runAgent` (overlay, sandbox, governed effects, repairs), with receipts signed by the
   * worker's key and the journal starting from the token's hash. A `run_check` is refused (the worker holds no
   * working tree). The caller uploads the database, then calls `release`.
   */
  async run(snapshot: string, snapshotPath: string, run: RemoteRun): Promise<RemoteOutcome> {
    const { id, ...spec } = run.data.agent;
    const entry = this.projectFor(snapshot, snapshotPath, id);
    entry.agents.add(id);
    const { core, bus } = entry.parts;
    const hashOfToken = tokenHash(run.data.token);
    const forget = () => {
      core.store.remove(id);
      for (const suffix of ['', '-wal', '-shm']) rmSync(core.layout.overlayPath(id) + suffix, { force: true });
    };
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      forget();
      entry.agents.delete(id);
      void this.closeIdle(snapshot);
    };
    try {
      // a run of this agent that an earlier job left here (the worker stopped mid-run) goes first
      forget();
      core.store.insertQueued({ ...spec, id, tokenHash: hashOfToken, worker: this.identity.worker, governance: run.data.governance });
      const unsubscribe =
        run.onEvent === undefined
          ? () => undefined
          : bus.subscribe((event) => ('agentId' in event && event.agentId === id ? run.onEvent?.(event) : undefined));
      const stop = () => void core.running.stop(id, (run.signal?.reason as Error | undefined)?.message ?? 'stopped');
      run.signal?.addEventListener('abort', stop);
      try {
        await runAgent(core, id);
      } finally {
        run.signal?.removeEventListener('abort', stop);
        unsubscribe();
      }
      return { record: core.store.require(id), database: core.layout.overlayPath(id), tokenHash: hashOfToken, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** Closes every project (once no job runs) and removes them. */
  async close(): Promise<void> {
    for (const [key, entry] of [...this.open]) {
      this.open.delete(key);
      await entry.project.close();
      rmSync(entry.dir, { recursive: true, force: true });
    }
  }

  private projectFor(snapshot: string, snapshotPath: string, agentId: string): SnapshotProject {
    const shared = this.open.get(snapshot);
    if (shared !== undefined && !shared.agents.has(agentId)) return shared;
    const key = shared === undefined ? snapshot : `${snapshot}#${++this.made}`;
    const dir = join(this.root, `${snapshot.slice(0, 16)}${shared === undefined ? '' : `-${this.made}`}`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(join(dir, '.agentfs'), { recursive: true, mode: 0o700 });
    // a clone where the file system shares blocks (btrfs, XFS), else a copy: the project's stable.db is its own
    copyFileSync(snapshotPath, join(dir, '.agentfs', 'stable.db'), constants.COPYFILE_FICLONE);
    const parts = wireProject(dir, {
      cairnHome: this.identity.home,
      queue: 'none',
      poolSize: 1,
      signer: ReceiptSigner.ed25519(this.identity.secret),
      ...(this.identity.sandbox === undefined ? {} : { sandbox: this.identity.sandbox }),
      runCheck: () => Promise.reject(new CheckRefused(checkRefusal(this.identity.worker))),
    });
    const entry: SnapshotProject = { dir, parts, project: new Project(parts), agents: new Set() };
    this.open.set(key, entry);
    return entry;
  }

  /** Closes and removes the projects no job uses, but the shared one of `current`. */
  private async closeIdle(current: string): Promise<void> {
    for (const [key, entry] of [...this.open]) {
      if (key === current || entry.agents.size > 0) continue;
      this.open.delete(key);
      await entry.project.close();
      rmSync(entry.dir, { recursive: true, force: true });
    }
  }
}

/** Why `run_check` is refused on a worker: the program gets it as an error it can catch. */
export function checkRefusal(worker: string): string {
  return `checks do not run on worker ${worker}: it holds no working tree (the project's dependencies and tools are on the coordinator); the coordinator runs the automatic checks once the proposal reaches review`;
}
