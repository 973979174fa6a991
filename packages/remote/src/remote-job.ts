import type { AgentSpec } from '@cairn/api';
import * as v from 'valibot';

/** The BullMQ queue of a project's coordinator, named for the project's home: one queue per project. */
export function queueNameOf(home: string): string {
  const name = home.split(/[\\/]/).filter(Boolean).at(-1) ?? 'project';
  return `cairn-${name.replace(/[^\w.-]/g, '-')}`;
}

/** What a coordinator's endpoint tells a worker at `GET /info`: the queue to take jobs from, the key tokens verify with. */
export interface CoordinatorInfo {
  queue: string;
  key: string;
}

/** What a job carries to a worker, and nothing more: the agent's spec, its governance, the snapshot, the token. */
export interface RemoteJobData {
  agent: AgentSpec & { id: string; createdBy?: string; role?: 'author' | 'reviewer' };
  /** The governance the agent runs under, as JSON text: its sha256 is the token's `governance` claim. */
  governance: string;
  /** sha256 (hex) of the snapshot of stable.db the agent starts from. */
  snapshot: string;
  token: string;
}

/**
 * What a worker reports as the job's progress: who runs it (its claim of the run, signed with its enrolled key
 * over `claimSigningText`) and how far its journal got.
 */
export interface RemoteProgress {
  worker: string;
  run: number;
  claim: string;
  events: number;
  last: string;
}

/** What a worker completes a job with. */
export type RemoteResult =
  | { state: 'reviewing'; worker: string; attempt: number; summary: string; calls: number; wallMs: number; repairs: number; runs: number }
  | { state: 'failed'; worker: string; attempt: number; code: string; reason: string };

const count = v.pipe(v.number(), v.integer(), v.minValue(0));
const text = v.string();

const dataSchema = v.object({
  agent: v.looseObject({
    id: v.pipe(text, v.regex(/^[0-9a-z][0-9a-z-]{0,63}$/)),
    task: text,
    origin: v.picklist(['code', 'model']),
    lang: v.picklist(['js', 'py']),
    model: v.optional(text),
    code: v.optional(text),
    limits: v.object({ wallMs: count, cpuMs: count, memoryMb: count }),
    budgets: v.object({ tokens: count, bytes: count, calls: count, wallMs: count, repairs: count }),
    scope: v.optional(v.array(text)),
  }),
  governance: text,
  snapshot: v.pipe(text, v.regex(/^[0-9a-f]{64}$/)),
  token: text,
});

/** The job's data read as untrusted input, or why it is not a job of Cairn's. */
export function parseJobData(input: unknown): { ok: true; data: RemoteJobData } | { ok: false; reason: string } {
  const parsed = v.safeParse(dataSchema, input);
  return parsed.success
    ? { ok: true, data: parsed.output as unknown as RemoteJobData }
    : { ok: false, reason: `the job is not a Cairn agent: ${v.summarize(parsed.issues)}` };
}

const resultSchema = v.variant('state', [
  v.object({
    state: v.literal('reviewing'),
    worker: text,
    attempt: count,
    summary: text,
    calls: count,
    wallMs: count,
    repairs: count,
    runs: count,
  }),
  v.object({ state: v.literal('failed'), worker: text, attempt: count, code: text, reason: text }),
]);

/** A completed job's result read as untrusted input. */
export function parseResult(input: unknown): RemoteResult | undefined {
  const parsed = v.safeParse(resultSchema, input);
  return parsed.success ? parsed.output : undefined;
}

/** The job id of an agent's attempt (BullMQ ids may not hold a colon). */
export function jobIdOf(agentId: string, attempt: number): string {
  return `${agentId}-${attempt}`;
}

/** The agent a job id (`jobIdOf`) is of, or undefined when it is not one. */
export function agentOfJobId(jobId: string): string | undefined {
  return /^([0-9a-f]{4,16})-\d+$/.exec(jobId)?.[1];
}

/** `agent 7f47 attempt 2`: a job in words, for logs (its run, BullMQ's, is not the agent's attempt). */
export function describeJob(jobId: string): string {
  const match = /^([0-9a-f]{4,16})-(\d+)$/.exec(jobId);
  return match === null ? `job ${jobId}` : `agent ${match[1]} attempt ${match[2]}`;
}

/** How a job's failure begins when the coordinator refused its upload: the rest is the coordinator's reason. */
export const UPLOAD_REFUSED = 'the coordinator refused the upload: ';
