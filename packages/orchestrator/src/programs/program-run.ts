import { createHash } from 'node:crypto';
import { stateLine, stateOf } from '@cairn/agentfs';
import type { ProgramLang } from '@cairn/api';
import { type CallRecord, type OneCall, type ProgramError, type RunStatus, runOneCall, type Sandbox } from '@cairn/sandbox';
import { appendCairnEntry, SCHEMAS } from '@cairn/workspace';
import type { FsView } from '../run/fs-effects.js';
import type { RunContext } from '../run/run-context.js';
import { buildToolbox } from '../tools/tool-table.js';

/** Limits of one program run. */
export interface RunLimits {
  wallMs: number;
  cpuMs: number;
  memoryMb: number;
  calls: number;
  /** Bytes of logs plus the program's result (the sandbox's default when absent). */
  outputBytes?: number;
}

/** How a program run ended. */
export interface ProgramRunResult {
  status: RunStatus;
  error?: ProgramError;
  calls: number;
  /** The last tool call that failed, for a repair report. */
  failedCall?: { tool: string; args: unknown[]; message: string };
  logs: string[];
  wallMs: number;
  /** Content hash of what the run left at every path it touched. */
  digest: string;
  /** What the program returned (a JSON value), when it ended ok. */
  value?: unknown;
}

/** The seed of a run's `Math.random`: the same for the same agent and run, in a replay too. */
export function runSeed(agentId: string, run: number): number {
  return createHash('sha256').update(`cairn/seed/${agentId}/${run}`).digest().readUInt32BE(0) || 1;
}

/**
 * Runs one program in the sandbox with the agent's tool functions (a program that is one call given as `call`
 * runs that call on the host, with the same result), between a `cairn/RunStarted@1` entry
 * (its inputs: program, language, seed, clock) and a `cairn/RunEnded@1` entry (its outcome and the digest of
 * the paths it touched), both in the agent's journal.
 */
export async function runProgram(
  ctx: RunContext,
  sandbox: Sandbox,
  program: { code: string; lang: ProgramLang; call?: OneCall },
  limits: RunLimits,
  clockMs: number,
): Promise<ProgramRunResult> {
  const seed = runSeed(ctx.agentId, ctx.run);
  const programRef = ctx.view.blobs.put(program.code);
  ctx.transaction(() =>
    appendCairnEntry(ctx.journal, SCHEMAS.runStarted, {
      run: ctx.run,
      program_ref: programRef,
      lang: program.lang,
      seed,
      clock_ms: clockMs,
    }),
  );
  const sandboxLimits = {
    wallMs: limits.wallMs,
    cpuMs: limits.cpuMs,
    memoryMb: limits.memoryMb,
    calls: Math.max(1, limits.calls),
    ...(limits.outputBytes === undefined ? {} : { outputBytes: limits.outputBytes }),
  };
  const functions = buildToolbox(ctx);
  // a program that is one call (an MCP client's) runs it on the host, as the sandbox would; a replay runs the program
  const result =
    program.call === undefined
      ? await sandbox.run({
          code: program.code,
          engine: program.lang === 'py' ? 'python' : 'js',
          functions,
          limits: sandboxLimits,
          input: { task: ctx.task },
          seed,
          clock: clockMs,
        })
      : await runOneCall(program.call, { functions, limits: sandboxLimits });
  const digest = touchedDigest(ctx.view);
  const outcome: Record<string, unknown> = { run: ctx.run, status: result.status, calls: result.stats.calls, digest };
  if (result.error !== undefined) outcome.error = `${result.error.name}: ${result.error.message}`.slice(0, 2000);
  ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.runEnded, outcome));
  const run: ProgramRunResult = {
    status: result.status,
    calls: result.stats.calls,
    logs: result.logs,
    wallMs: result.stats.wallMs,
    digest,
  };
  if (result.error !== undefined) run.error = result.error;
  if (result.status === 'ok') run.value = result.value;
  const failed = lastFailedCall(result.calls);
  if (failed !== undefined) run.failedCall = failed;
  return run;
}

function lastFailedCall(calls: readonly CallRecord[]): ProgramRunResult['failedCall'] {
  for (let i = calls.length - 1; i >= 0; i--) {
    const call = calls[i]!;
    if (!call.ok) return { tool: call.name, args: call.args, message: String(call.value) };
  }
  return undefined;
}

/** Hash of the state now of every path this run touched (kind, permission bits, content). */
export function touchedDigest(view: FsView): string {
  const hash = createHash('sha256');
  for (const entry of view.touched.entries(view.run)) {
    const state = stateOf(view.fs, '/' + entry.path);
    hash.update(`${entry.path}\0${stateLine(state)}\n`);
  }
  return `sha256:${hash.digest('hex')}`;
}

/** Hash of the state now of `paths` (sorted) in `fs`: what an overlay holds where its runs wrote. */
export function contentDigest(fs: FsView['fs'], paths: Iterable<string>): string {
  const hash = createHash('sha256');
  for (const path of [...new Set(paths)].sort()) hash.update(`${path}\0${stateLine(stateOf(fs, '/' + path))}\n`);
  return `sha256:${hash.digest('hex')}`;
}

/** Puts back what a failed attempt changed, so the next attempt starts where this one did. */
export function rollbackRun(view: FsView): void {
  const entries = view.touched.entries(view.run);
  for (const entry of [...entries].sort((a, b) => (a.path < b.path ? 1 : -1))) {
    const before = view.touched.stateOf(entry);
    if (before.kind === 'absent' || before.kind === 'dir') {
      const now = stateOf(view.fs, '/' + entry.path);
      if (before.kind === 'absent' && now.kind !== 'absent') view.fs.rm('/' + entry.path, { recursive: true, force: true });
    }
  }
  for (const entry of entries) {
    const before = view.touched.stateOf(entry);
    const path = '/' + entry.path;
    if (before.kind === 'dir') {
      if (stateOf(view.fs, path).kind !== 'dir') view.fs.mkdir(path, { recursive: true, mode: before.mode & 0o7777 });
    } else if (before.kind === 'file') {
      view.fs.writeFile(path, before.content, { mode: before.mode & 0o7777 });
    } else if (before.kind === 'symlink') {
      if (stateOf(view.fs, path).kind !== 'absent') view.fs.rm(path, { recursive: true });
      view.fs.symlink(before.content.toString('utf8'), path);
    }
  }
}
