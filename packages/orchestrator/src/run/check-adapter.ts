import { createHash } from 'node:crypto';
import type { Overlay } from '@cairn/agentfs';
import type { CborValue } from '@cairn/air';
import type { CheckSpec, ProposedFile, SealedRun } from '@cairn/checks';
import type { BlobStore } from '@cairn/workspace';
import type { EffectResult } from './fs-effects.js';

/**
 * What a check runner throws when it does not run checks at all (a worker, which holds no working tree): the
 * effect's receipt is an error with this message, which the program gets as a catchable error.
 */
export class CheckRefused extends Error {
  override readonly name = 'CheckRefused';
}

/** Runs one declared check over a proposal, live (the sealed runner, under the pool's limits). */
export type CheckRunner = (spec: CheckSpec, changes: readonly ProposedFile[], timeoutMs: number) => Promise<SealedRun>;

/** What a live `check.run` effect calls: runs the check named in `params` over `changes`, keeps its output as a blob. */
export type CheckCall = (params: Record<string, CborValue>, changes: readonly ProposedFile[]) => Promise<EffectResult>;

/** The agent's proposal as a check sees it: its changed files with their content, deletions as `null`. */
export function proposalOf(overlay: Overlay): ProposedFile[] {
  const out: ProposedFile[] = [];
  for (const change of overlay.changes()) {
    if (change.status === 'deleted') out.push({ path: change.path, content: null });
    else if (change.after.kind === 'file') out.push({ path: change.path, content: change.after.content });
  }
  return out;
}

/** The hash naming a proposal's exact content: the check's receipt belongs to it and to nothing else. */
export function proposalRef(changes: readonly ProposedFile[]): string {
  const hash = createHash('sha256');
  for (const change of [...changes].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))) {
    hash.update(change.path).update('\0');
    hash.update(change.content === null ? 'deleted' : createHash('sha256').update(change.content).digest('hex')).update('\n');
  }
  return `sha256:${hash.digest('hex')}`;
}

/** The live check adapter: the runner's outcome as a `sys/CheckRunReceipt@1` payload, the output kept in `blobs`. */
export function checkCaller(checks: readonly CheckSpec[], runner: CheckRunner, blobs: BlobStore): CheckCall {
  return async (params, changes) => {
    const spec = checks.find((check) => check.name === params.name);
    if (spec === undefined)
      return { status: 'error', payload: { error: `no check named ${JSON.stringify(params.name)}`, code: 'no-check' } };
    let run: SealedRun;
    try {
      run = await runner(spec, changes, Number(params.timeout_ms));
    } catch (error) {
      if (!(error instanceof CheckRefused)) throw error;
      return { status: 'error', payload: { error: error.message, code: 'check-refused' } };
    }
    const payload: Record<string, CborValue> = {
      name: spec.name,
      status: run.status,
      duration_ms: Math.max(0, Math.round(run.durationMs)),
      output_ref: blobs.put(run.output),
      output_size: run.outputBytes,
      truncated: run.truncated,
      view: run.view,
      sealed: run.sealed,
    };
    if (run.exitCode !== undefined) payload.exit_code = run.exitCode;
    if (run.error !== undefined) payload.error = run.error;
    return { status: 'ok', payload };
  };
}
