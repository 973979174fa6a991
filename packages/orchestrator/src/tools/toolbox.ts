import type { CborValue } from '@cairn/air';
import type { ToolHandler } from '@cairn/sandbox';
import { formatTriage, parseTriage } from '@cairn/triage';
import { performList, performRead, performSearch, performWrite, type WriteOp } from '../run/fs-effects.js';
import { contentHash } from '../workspace/blob-store.js';
import { governedFsEffect, governedModelEffect, type EffectOutcome } from '../run/governed-effect.js';
import type { RunContext } from '../run/run-context.js';
import { askParams } from './ask-llm.js';
import { normalProjectPath } from '@cairn/air';
import { nameLimitProblem, resolutionKey, resolveToolPath, type ResolvedPath } from '../run/resolve-path.js';
import { appendCairnEntry, SCHEMAS } from '../workspace/journal-entries.js';

/** A tool call the program made wrongly, or that was refused: it reaches the program as a catchable error. */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}

const MAX_LOG = 2000;
const MAX_SUMMARY = 4000;

/**
 * The tool functions a program gets, the same names in JavaScript and Python. Every file and model call
 * is a governed effect (`governedFsEffect`, `governedModelEffect`); `log`, `get_task` and `submit_result` are
 * journaled as Cairn events. A tool call never throws anything but a one-line `ToolError`.
 */
export function buildToolbox(ctx: RunContext): Record<string, ToolHandler> {
  const tools: Record<string, ToolHandler> = {
    read_file: (path) =>
      fsCall(ctx, 'read_file', path, 'follow', false, (p) => [
        'fs.read',
        { path: p },
        () => performRead(ctx.view, p, false),
        (r) => ctx.blobs.text(String(r.content_ref)),
      ]),
    file_exists: (path) =>
      fsCall(ctx, 'file_exists', path, 'follow', false, (p) => [
        'fs.read',
        { path: p, stat_only: true },
        () => performRead(ctx.view, p, true),
        (r) => r.kind !== 'absent',
      ]),
    list_dir: (path = '.') =>
      fsCall(ctx, 'list_dir', path, 'follow', false, (p) => [
        'fs.list',
        { path: p },
        () => performList(ctx.view, p, false),
        (r) => (r.entries as string[]).slice(),
      ]),
    get_file_tree: () =>
      fsCall(ctx, 'get_file_tree', '.', 'follow', false, (p) => [
        'fs.list',
        { path: p, recursive: true },
        () => performList(ctx.view, p, true),
        (r) => ctx.blobs.text(String(r.result_ref)),
      ]),
    search_files: (glob) => {
      const pattern = requireString(glob, 'search_files', 'glob');
      return fsCall(ctx, 'search_files', '.', 'follow', false, (p) => [
        'fs.search',
        { pattern, path: p, content: false },
        () => performSearch(ctx.view, pattern, p, false),
        (r) => (r.matches as string[]).slice(),
      ]);
    },
    search_content: (pattern, path = '.') => {
      const regex = requireString(pattern, 'search_content', 'pattern');
      return fsCall(ctx, 'search_content', path, 'follow', false, (p) => [
        'fs.search',
        { pattern: regex, path: p, content: true },
        () => performSearch(ctx.view, regex, p, true),
        (r) => ctx.blobs.json(String(r.result_ref)),
      ]);
    },
    write_file: (path, content) => {
      if (typeof content !== 'string') throw new ToolError(`write_file: content must be a string, not ${kindOf(content)}`);
      const bytes = Buffer.from(content, 'utf8');
      return fsCall(ctx, 'write_file', path, 'follow', true, (p) => [
        'fs.write',
        { op: 'write', path: p, size: bytes.length, content_ref: contentHash(bytes) },
        () => performWrite(ctx.view, { op: 'write', path: p, content: bytes }),
        () => true,
      ]);
    },
    delete_file: (path) => fsCall(ctx, 'delete_file', path, 'entry', false, (p) => writeCall(ctx, { op: 'delete', path: p })),
    move_file: (from, to) => {
      const target = resolvePath(ctx, to, 'follow', 'to');
      if (target.type === 'refused') return refuse(ctx, 'move_file', target.reason, to, 'follow');
      const tooLong = target.type === 'resolved' ? nameLimitProblem(target.path) : undefined;
      if (tooLong !== undefined) return refuse(ctx, 'move_file', `cannot create "${shorten(String(to))}": ${tooLong}`);
      return fsCall(ctx, 'move_file', from, 'entry', false, (p) => writeCall(ctx, { op: 'move', path: p, to: target.path }));
    },
    ask_llm: async (prompt, context = '') => {
      const question = requireString(prompt, 'ask_llm', 'prompt');
      const extra = requireString(context, 'ask_llm', 'context');
      const params = askParams(ctx, question, extra);
      const outcome = await governedModelEffect(ctx, params, { tool: 'ask_llm' });
      return settle(ctx, 'ask_llm', undefined, outcome, (r) => ctx.blobs.text(String(r.output_ref)));
    },
    get_task: () => {
      note(ctx, { tool: 'get_task' });
      return ctx.feedback === undefined ? ctx.task : `${ctx.task}\n\nFeedback on your earlier proposal:\n${ctx.feedback}`;
    },
    log: (message) => {
      const text = (typeof message === 'string' ? message : (JSON.stringify(message) ?? String(message))).slice(0, MAX_LOG);
      note(ctx, { tool: 'log', message: text });
      ctx.emit({ type: 'agent.log', time: new Date(ctx.clock()).toISOString(), agentId: ctx.agentId, message: text });
      return true;
    },
    get_proposal: () => {
      if (ctx.review === undefined)
        throw new ToolError('get_proposal: only a reviewer agent has a proposal to read (start one with `cairn review <id>`)');
      note(ctx, { tool: 'get_proposal', agent: ctx.review.reviews });
      return ctx.review.proposal();
    },
    decide: (decision, note_ = '') => {
      if (ctx.review === undefined)
        throw new ToolError('decide: only a reviewer agent decides; an author ends with submit_result(summary, changed_files)');
      const text = requireString(decision, 'decide', 'decision').trim();
      const comment = requireString(note_, 'decide', 'note').slice(0, MAX_SUMMARY);
      const parsed = parseTriage(text);
      if (!parsed.ok) throw new ToolError(`decide: ${parsed.error.message}`);
      if (ctx.review.decision !== undefined)
        throw new ToolError(`decide: already decided ${ctx.review.decision.decision}; a reviewer decides once`);
      ctx.review.decision = { decision: formatTriage(parsed.value), note: comment };
      note(ctx, { tool: 'decide', decision: ctx.review.decision.decision, note: comment });
      return true;
    },
    submit_result: (summary, changedFiles = []) => {
      if (ctx.review !== undefined) throw new ToolError('submit_result: a reviewer proposes nothing; it ends with decide(decision, note)');
      const text = requireString(summary, 'submit_result', 'summary').slice(0, MAX_SUMMARY);
      if (!Array.isArray(changedFiles) || changedFiles.some((f) => typeof f !== 'string'))
        throw new ToolError('submit_result: changed_files must be a list of paths');
      ctx.submission = { summary: text, changedFiles: changedFiles as string[] };
      note(ctx, { tool: 'submit_result', summary: text, changed_files: changedFiles as string[] });
      return true;
    },
  };
  return tools;
}

type Plan = [
  kind: string,
  params: Record<string, unknown>,
  perform: Parameters<typeof governedFsEffect>[3],
  value: (payload: Record<string, CborValue>) => unknown,
];

function writeCall(ctx: RunContext, write: WriteOp): Plan {
  const params: Record<string, unknown> =
    write.op === 'move' ? { op: 'move', path: write.path, to: write.to, size: 0 } : { op: write.op, path: write.path, size: 0 };
  return ['fs.write', params, () => performWrite(ctx.view, write), () => true];
}

/**
 * Resolves the path, runs the effect in one transaction, records the call, and returns the value or throws.
 * A call that `creates` the path is refused when the disk could never hold it (a name or path too long).
 */
function fsCall(
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
  return settle(ctx, tool, resolved.path, outcome, value);
}

function settle(
  ctx: RunContext,
  tool: string,
  path: string | undefined,
  outcome: EffectOutcome,
  value: (payload: Record<string, CborValue>) => unknown,
): unknown {
  const time = new Date(ctx.clock()).toISOString();
  const where = path === undefined ? {} : { path };
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
function resolvePath(ctx: RunContext, raw: unknown, mode: 'follow' | 'entry', name = 'path'): ResolvedPath {
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
function refuse(ctx: RunContext, tool: string, reason: string, raw?: unknown, mode?: 'follow' | 'entry'): never {
  const value: Record<string, CborValue> = { tool, reason, run: ctx.run };
  if (typeof raw === 'string' && mode !== undefined) Object.assign(value, { raw, mode });
  ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.toolRefused, value, 'agent'));
  ctx.emit({ type: 'agent.denied', time: new Date(ctx.clock()).toISOString(), agentId: ctx.agentId, tool, effect: 'cairn.path', reason });
  throw new ToolError(`${tool}: ${reason}`);
}

function note(ctx: RunContext, value: Record<string, CborValue>): void {
  ctx.transaction(() => appendCairnEntry(ctx.journal, SCHEMAS.toolCalled, value, 'agent'));
}

/** A long path argument cut for an error message. */
function shorten(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}

function requireString(value: unknown, tool: string, name: string): string {
  if (typeof value !== 'string') throw new ToolError(`${tool}: ${name} must be a string, not ${kindOf(value)}`);
  return value;
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing';
  if (Array.isArray(value)) return 'a list';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
