import { type CborValue, normalProjectPath } from '@cairn/air';
import { appendCairnEntry, SCHEMAS } from '@cairn/workspace';
import { performWrite, type WriteOp } from '../run/fs-effects.js';
import { type EffectOutcome, governedFsEffect } from '../run/governed-effect.js';
import { nameLimitProblem, type ResolvedPath, resolutionKey, resolveToolPath } from '../run/resolve-path.js';
import type { RunContext } from '../run/run-context.js';

/** A tool call the program made wrongly, or that was refused: it reaches the program as a catchable error. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

/** What a file tool does, once its path is resolved: the effect's kind and parameters, how it runs, and what the program gets back. */
export type Plan = [
  kind: string,
  params: Record<string, unknown>,
  perform: Parameters<typeof governedFsEffect>[3],
  value: (payload: Record<string, CborValue>) => unknown,
];

/** The plan of a write, delete or move. */
export function writeCall(ctx: RunContext, write: WriteOp, extra: Record<string, unknown> = {}): Plan {
  const params: Record<string, unknown> =
    write.op === 'move' ? { op: 'move', path: write.path, to: write.to, size: 0 } : { op: write.op, path: write.path, size: 0, ...extra };
  return ['fs.write', params, () => performWrite(ctx.view, write), () => true];
}

/**
 * Resolves the path, runs the effect in one transaction, records the call, and returns the value or throws.
 * A call that `creates` the path is refused when the disk could never hold it (a name or path too long).
 */
export function fsCall(
  ctx: RunContext,
  tool: string,
  rawPath: unknown,
  mode: 'follow' | 'entry',
  creates: boolean,
  plan: (path: string) => Plan,
): unknown {
  const resolved = resolvePath(ctx, rawPath, mode);
  if (resolved.type === 'refused') return refuse(ctx, tool, resolved.reason, rawPath, mode);
  const tooLong = creates && resolved.type === 'resolved' ? nameLimitProblem(resolved.path) : undefined;
  if (tooLong !== undefined) return refuse(ctx, tool, `cannot create "${shorten(String(rawPath))}": ${tooLong}`);
  const [kind, params, perform, value] = plan(resolved.path);
  const outcome = ctx.transaction(() => governedFsEffect(ctx, kind, params, perform, { tool, path: resolved.path }));
  return settle(ctx, tool, resolved.path, outcome, value, typeof params.pattern === 'string' ? params.pattern : undefined);
}

/**
 * Reports a governed call's outcome as an event (with the search's pattern, for a search) and returns its value,
 * or throws its failure as a `ToolError`.
 */
export function settle(
  ctx: RunContext,
  tool: string,
  path: string | undefined,
  outcome: EffectOutcome,
  value: (payload: Record<string, CborValue>) => unknown,
  pattern?: string,
): unknown {
  const time = new Date(ctx.clock()).toISOString();
  const where = { ...(path === undefined ? {} : { path }), ...(pattern === undefined ? {} : { pattern }) };
  if (!outcome.ok) {
    ctx.emit({ type: 'agent.tool-called', time, agentId: ctx.agentId, tool, ...where, ok: false, message: outcome.message });
    throw new ToolError(`${tool}: ${outcome.message}`);
  }
  ctx.emit({ type: 'agent.tool-called', time, agentId: ctx.agentId, tool, ...where, ok: true });
  return value(outcome.payload);
}

/**
 * Where a path argument leads. A resolution through a symbolic link depends on the project as it was, so
 * it is journaled, and a replay takes it from the recording instead of its scratch overlay.
 */
export function resolvePath(ctx: RunContext, raw: unknown, mode: 'follow' | 'entry', name = 'path'): ResolvedPath {
  if (ctx.mode === 'replay' && typeof raw === 'string') {
    const recorded = ctx.recordedPaths?.get(resolutionKey(ctx.run, mode, raw));
    if (recorded !== undefined) {
      if (recorded.type === 'resolved') notePath(ctx, raw, mode, recorded.path);
      return recorded;
    }
    const lexical = normalProjectPath(raw);
    return lexical === undefined ? { type: 'lexical', path: raw } : { type: 'resolved', path: lexical };
  }
  const resolved = resolveToolPath(ctx.view.fs, raw, mode, name);
  if (resolved.type === 'resolved' && typeof raw === 'string' && resolved.path !== normalProjectPath(raw))
    notePath(ctx, raw, mode, resolved.path);
  return resolved;
}

function notePath(ctx: RunContext, raw: string, mode: 'follow' | 'entry', path: string): void {
  ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.pathResolved, { run: ctx.run, raw, mode, path }, 'agent'));
}

/** A call Cairn refuses before it becomes an effect (a path that cannot be followed): journaled, then thrown. */
export function refuse(ctx: RunContext, tool: string, reason: string, raw?: unknown, mode?: 'follow' | 'entry'): never {
  const value: Record<string, CborValue> = { tool, reason, run: ctx.run };
  if (typeof raw === 'string' && mode !== undefined) Object.assign(value, { raw, mode });
  ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.toolRefused, value, 'agent'));
  ctx.emit({ type: 'agent.denied', time: new Date(ctx.clock()).toISOString(), agentId: ctx.agentId, tool, effect: 'cairn.path', reason });
  throw new ToolError(`${tool}: ${reason}`);
}

/** Journals a call that needs no grant (`log`, `get_task`, `submit_result`, a reviewer's calls). */
export function note(ctx: RunContext, value: Record<string, CborValue>): void {
  ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.toolCalled, value, 'agent'));
}

/** A long path argument cut for an error message. */
export function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

/** The argument when it is a string; a `ToolError` naming the tool and the parameter otherwise. */
export function requireString(value: unknown, tool: string, name: string): string {
  if (typeof value !== 'string') throw new ToolError(`${tool}: ${name} must be a string, not ${kindOf(value)}`);
  return value;
}

/** What a value is, in words, for an error message. */
export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
