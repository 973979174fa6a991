import type { AgentRecord, ProjectCore } from '@cairn/orchestrator/engine';
import type { Job } from 'bullmq';
import { parseJobData, parseResult, UPLOAD_REFUSED } from './remote-job.js';
import { adoptUpload, failRemoteAgent, keepEvidence, refusedUploadOf } from './result-intake.js';
import { workerOf } from './run-claim.js';
import type { SnapshotMaker } from './snapshots.js';
import { verifyResult } from './verify-result.js';
import { uploadPaths } from './worker-endpoint.js';
import type { WorkerRoster } from './worker-roster.js';

/** The attempt after which an agent that untrusted workers keep taking fails instead of going back on the queue. */
const ATTEMPTS_PAST_UNTRUSTED = 4;

/** Where results are read from and refusals kept. */
export interface SettlementPlaces {
  uploads: string;
  evidence: string;
  snapshots: Pick<SnapshotMaker, 'pathOf'>;
  /** The coordinator's public key, which signed the job's token. */
  coordinatorKey: Uint8Array;
}

/** Puts attempt `attempt` of an agent on the queue again, saying why. */
export type Requeue = (record: AgentRecord, attempt: number, lost: number | undefined, why: string) => Promise<void>;

/**
 * What becomes of an agent whose job ended: a completed job's result is verified by replay and adopted (the agent
 * reaches `reviewing`) or refused (it fails, the evidence kept, the worker untrusted when to blame); a failed
 * job fails the agent; a job an untrusted worker had goes back on the queue for another.
 */
export class JobSettlement {
  constructor(
    private readonly core: Pick<ProjectCore, 'clock' | 'defaultModel' | 'layout' | 'lifecycle' | 'sandbox' | 'signer' | 'stable' | 'store'>,
    private readonly roster: WorkerRoster,
    private readonly places: SettlementPlaces,
    private readonly requeue: Requeue,
    private readonly log: (agentId: string, message: string) => void,
  ) {}

  /** A completed job: its result verified and adopted, or the agent failed with why. */
  async completed(record: AgentRecord, job: Job): Promise<'settled' | 'requeued'> {
    const jobId = job.id!;
    const result = parseResult(job.returnvalue);
    if (result === undefined) {
      failRemoteAgent(this.core, record.id, { code: 'remote', message: `job ${jobId} completed without a result Cairn can read` });
      return 'settled';
    }
    this.core.store.update(record.id, { worker: result.worker }, ['running']);
    if (await this.requeueFromUntrusted(record, result.worker)) return 'requeued';
    if (result.state === 'failed') {
      failRemoteAgent(this.core, record.id, { code: result.code, message: `on worker ${result.worker}: ${result.reason}` });
      return 'settled';
    }
    const untrusted = this.roster.untrusted(result.worker);
    if (untrusted !== undefined) {
      failRemoteAgent(this.core, record.id, {
        code: 'untrusted',
        message: `worker ${result.worker} is untrusted (${untrusted}); its result was not looked at`,
        hint: `clear it with \`cairn worker trust ${result.worker}\``,
      });
      return 'settled';
    }
    const upload = uploadPaths(this.places.uploads, jobId, job.attemptsStarted);
    const data = parseJobData(job.data);
    const snapshotPath = data.ok ? this.places.snapshots.pathOf(data.data.snapshot) : undefined;
    if (!data.ok || snapshotPath === undefined) {
      failRemoteAgent(this.core, record.id, { code: 'remote', message: `job ${jobId}'s snapshot is gone from this coordinator` });
      return 'settled';
    }
    const verdict = await verifyResult(
      this.core,
      {
        record,
        jobId,
        attempt: job.attemptsStarted,
        token: data.data.token,
        coordinatorKey: this.places.coordinatorKey,
        snapshot: data.data.snapshot,
        snapshotPath,
        upload,
        workerKey: (name) => this.roster.keyOf(name),
        runs: result.runs,
        now: this.core.clock(),
      },
      result.worker,
    ).catch((error: Error) => ({ ok: false as const, reason: `verification failed: ${error.message}`, blameWorker: false }));
    if (!verdict.ok) {
      const evidence = keepEvidence(this.places.evidence, upload, jobId, job.attemptsStarted);
      if (verdict.blameWorker) this.roster.distrust(result.worker, `${jobId}: ${verdict.reason}`);
      failRemoteAgent(this.core, record.id, {
        code: 'unverified',
        message: `the result of worker ${result.worker} was refused: ${verdict.reason}`,
        hint: `evidence kept in ${evidence}${verdict.blameWorker ? `; the worker is untrusted until \`cairn worker trust ${result.worker}\`` : ''}`,
      });
      return 'settled';
    }
    adoptUpload(this.core, record, upload.db, verdict, result);
    await job.remove().catch(() => undefined);
    return 'settled';
  }

  /** A failed job: back on the queue when an untrusted worker had it; else the agent fails (refused upload: unverified). */
  async failed(record: AgentRecord, job: Job): Promise<'settled' | 'requeued'> {
    const jobId = job.id!;
    const by = workerOf(job) ?? record.worker;
    if (by !== undefined && (await this.requeueFromUntrusted(record, by))) return 'requeued';
    const reason = job.failedReason ?? 'the job failed';
    // the worker that had the job says its own upload was refused: the refusal kept names it
    const refused =
      by !== undefined && reason.startsWith(UPLOAD_REFUSED)
        ? refusedUploadOf(this.places.evidence, jobId, job.attemptsStarted, by)
        : undefined;
    if (by !== undefined && refused !== undefined) {
      this.roster.distrust(by, `${jobId}: ${refused.refused}`);
      failRemoteAgent(this.core, record.id, {
        code: 'unverified',
        message: `the result of worker ${by} was refused: ${refused.refused}`,
        hint: `evidence kept in ${refused.path}; the worker is untrusted until \`cairn worker trust ${by}\``,
      });
      return 'settled';
    }
    failRemoteAgent(this.core, record.id, { code: 'remote', message: `${by === undefined ? '' : `worker ${by}: `}${reason}` });
    return 'settled';
  }

  /**
   * Puts the agent back on the queue, for another worker, when `worker` (which took its job) is untrusted: its
   * result is never looked at, and the agent should not fail for it. True when it did; an agent that untrusted
   * workers took again and again fails instead.
   */
  private async requeueFromUntrusted(record: AgentRecord, worker: string): Promise<boolean> {
    const why = this.roster.untrusted(worker);
    const attempt = record.remoteJob?.attempt ?? 1;
    if (why === undefined || attempt >= ATTEMPTS_PAST_UNTRUSTED) return false;
    const said = `worker ${worker} is untrusted (${why}): its result is not looked at, and the agent goes back on the queue`;
    this.log(record.id, said);
    await this.requeue(record, attempt + 1, record.remoteJob?.lost, said);
    return true;
  }
}
