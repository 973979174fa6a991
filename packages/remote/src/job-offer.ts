import { startingGovernance } from '@cairn/governance';
import type { AgentRecord, ProjectCore } from '@cairn/orchestrator/engine';
import { governanceHash, signToken } from './capability-token.js';
import { jobIdOf, type RemoteJobData } from './remote-job.js';

/** One attempt of an agent as offered to workers: the job's id and data, with the token signed for it. */
export interface JobOffer {
  jobId: string;
  data: RemoteJobData;
  token: string;
}

/**
 * What a worker needs for an attempt and nothing more: the agent's spec, the governance it runs under (its JSON
 * text, computed here once by `startingGovernance`, as a local run computes it), the snapshot's hash, and a
 * capability token (signed with the coordinator's `secret`) naming the job, the agent, the attempt, the model,
 * the grants, the sha256 of that governance text, the budgets, the snapshot and when it expires.
 */
export function offerJob(
  core: Pick<ProjectCore, 'layout' | 'defaultModel' | 'clock'>,
  record: AgentRecord,
  attempt: number,
  snapshot: string,
  secret: Uint8Array,
  ttlMs: number,
): JobOffer {
  const governance = startingGovernance(core.layout, record);
  const jobId = jobIdOf(record.id, attempt);
  const model = record.model ?? core.defaultModel;
  const token = signToken(
    {
      job: jobId,
      agent: record.id,
      attempt,
      model,
      grants: governance.grants.map((grant) => grant.name),
      governance: governanceHash(governance.json),
      budgets: record.budgets,
      snapshot: `sha256:${snapshot}`,
      expiresAt: core.clock() + ttlMs,
    },
    secret,
  );
  const { id, task, origin, lang, code, limits, budgets, scope, modelOptions, createdBy, role } = record;
  const agent = { id, task, origin, lang, model, code, limits, budgets, scope, modelOptions, createdBy, role };
  const data: RemoteJobData = {
    // a plain JSON copy: BullMQ stores the data as JSON, and undefined fields must not reach the worker's parser
    agent: JSON.parse(JSON.stringify(agent)) as RemoteJobData['agent'],
    governance: governance.json,
    snapshot,
    token,
  };
  return { jobId, data, token };
}
