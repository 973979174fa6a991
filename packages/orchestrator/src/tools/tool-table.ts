import type { ToolHandler } from '@cairn/sandbox';
import { formatTriage, parseTriage } from '@cairn/triage';
import { contentHash } from '@cairn/workspace';
import { performList, performRead, performSearch, performWrite } from '../run/fs-effects.js';
import { nameLimitProblem } from '../run/resolve-path.js';
import type { RunContext } from '../run/run-context.js';
import { askParams } from './ask-llm.js';
import { CAPTURE_TOOLS } from './capture-tools.js';
import { governedModelCall } from './model-call.js';
import { runCheckTool } from './run-check.js';
import {
  fsCall,
  kindOf,
  note,
  type Plan,
  refuse,
  requireString,
  resolvePath,
  settle,
  shorten,
  ToolError,
  writeCall,
} from './tool-calls.js';
import type { ToolAudience, ToolParam, ToolSpec } from './tool-spec.js';

export type { ToolAudience, ToolParam, ToolSpec } from './tool-spec.js';

const MAX_LOG = 2000;
const MAX_SUMMARY = 4000;

const path: ToolParam = { name: 'path', type: 'string' };
const TRUE = { js: 'true', py: 'bool' };

/** The tool functions, the only things an agent's program can do. */
export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'read_file',
    params: [path],
    returns: { js: 'string', py: 'str' },
    doc: 'The UTF-8 text of a project file.',
    audience: 'everyone',
    handler: (ctx) => (p) => fsCall(ctx, 'read_file', p, 'follow', false, (at) => readPlan(ctx, at)),
  },
  {
    name: 'write_file',
    params: [path, { name: 'content', type: 'string' }],
    returns: TRUE,
    doc: 'Creates or replaces a file (its folders are made as needed).',
    audience: 'author',
    handler: (ctx) => (p, content) => {
      if (typeof content !== 'string') throw new ToolError(`write_file: content must be a string, not ${kindOf(content)}`);
      return fsCall(ctx, 'write_file', p, 'follow', true, (at) => writePlan(ctx, at, Buffer.from(content, 'utf8')));
    },
  },
  {
    name: 'edit_file',
    params: [path, { name: 'old_text', type: 'string' }, { name: 'new_text', type: 'string' }],
    returns: TRUE,
    doc: 'Replaces old_text, which must occur exactly once in the file, with new_text (a read and a write).',
    audience: 'author',
    handler: (ctx) => (p, oldText, newText) => {
      const before = requireString(oldText, 'edit_file', 'old_text');
      const after = requireString(newText, 'edit_file', 'new_text');
      if (before === '') throw new ToolError('edit_file: old_text is empty: give the text to replace (write_file writes a whole file)');
      const text = fsCall(ctx, 'edit_file', p, 'follow', false, (at) => readPlan(ctx, at)) as string;
      const count = text.split(before).length - 1;
      if (count !== 1)
        throw new ToolError(
          count === 0
            ? `edit_file: old_text does not occur in ${shorten(String(p))}`
            : `edit_file: old_text occurs ${count} times in ${shorten(String(p))}; give more of the text around it, so it occurs once`,
        );
      const edited = text.replace(before, () => after);
      return fsCall(ctx, 'edit_file', p, 'follow', true, (at) => writePlan(ctx, at, Buffer.from(edited, 'utf8')));
    },
  },
  {
    name: 'delete_file',
    params: [path],
    returns: TRUE,
    doc: 'Deletes a file (or a folder with everything in it).',
    audience: 'author',
    handler: (ctx) => (p) => fsCall(ctx, 'delete_file', p, 'entry', false, (at) => writeCall(ctx, { op: 'delete', path: at })),
  },
  {
    name: 'move_file',
    // `source` and `target`, not `from` and `to`: `from` is a keyword in Python
    params: [
      { name: 'source', type: 'string' },
      { name: 'target', type: 'string' },
    ],
    returns: TRUE,
    doc: 'Moves or renames a file (or folder); target is the full new path.',
    audience: 'author',
    handler: (ctx) => (source, target) => {
      const to = resolvePath(ctx, target, 'follow', 'target');
      if (to.type === 'refused') return refuse(ctx, 'move_file', to.reason, target, 'follow');
      const tooLong = to.type === 'resolved' ? nameLimitProblem(to.path) : undefined;
      if (tooLong !== undefined) return refuse(ctx, 'move_file', `cannot create "${shorten(String(target))}": ${tooLong}`);
      return fsCall(ctx, 'move_file', source, 'entry', false, (at) => writeCall(ctx, { op: 'move', path: at, to: to.path }));
    },
  },
  {
    name: 'list_dir',
    params: [{ ...path, default: "'.'" }],
    returns: { js: 'string[]', py: 'list[str]' },
    doc: 'Names in a folder; folder names end with "/".',
    audience: 'everyone',
    handler:
      (ctx) =>
      (p = '.') =>
        fsCall(ctx, 'list_dir', p, 'follow', false, (at) => [
          'fs.list',
          { path: at },
          () => performList(ctx.view, at, false),
          (r) => (r.entries as string[]).slice(),
        ]),
  },
  {
    name: 'file_exists',
    params: [path],
    returns: { js: 'boolean', py: 'bool' },
    doc: 'True when a file or folder exists at path.',
    audience: 'everyone',
    handler: (ctx) => (p) =>
      fsCall(ctx, 'file_exists', p, 'follow', false, (at) => [
        'fs.read',
        { path: at, stat_only: true },
        () => performRead(ctx.view, at, true),
        (r) => r.kind !== 'absent',
      ]),
  },
  {
    name: 'search_files',
    params: [{ name: 'glob', type: 'string' }],
    returns: { js: 'string[]', py: 'list[str]' },
    doc: 'Project paths matching a glob such as "src/**/*.ts", sorted, at most 1000 (a list of exactly 1000 was cut: narrow the glob).',
    audience: 'everyone',
    handler: (ctx) => (glob) => {
      const pattern = requireString(glob, 'search_files', 'glob');
      return fsCall(ctx, 'search_files', '.', 'follow', false, (at) => [
        'fs.search',
        { pattern, path: at, content: false },
        () => performSearch(ctx.view, pattern, at, false),
        (r) => (r.matches as string[]).slice(),
      ]);
    },
  },
  {
    name: 'search_content',
    params: [
      { name: 'pattern', type: 'string' },
      { ...path, default: "'.'" },
    ],
    returns: { js: '{ path: string; line: number; text: string }[]', py: 'list[dict]' },
    doc: 'Lines matching a regular expression (RE2 syntax) in the files under path, at most 500; each has path, line (1-based) and text.',
    audience: 'everyone',
    handler:
      (ctx) =>
      (pattern, p = '.') => {
        const regex = requireString(pattern, 'search_content', 'pattern');
        return fsCall(ctx, 'search_content', p, 'follow', false, (at) => [
          'fs.search',
          { pattern: regex, path: at, content: true },
          () => performSearch(ctx.view, regex, at, true),
          (r) => ctx.blobs.json(String(r.result_ref)),
        ]);
      },
  },
  {
    name: 'get_file_tree',
    params: [],
    returns: { js: 'string', py: 'str' },
    doc: 'The project as an indented tree of names (ignored files left out), at most 400 lines; a cut tree ends with "… and N more entries".',
    audience: 'everyone',
    handler: (ctx) => () =>
      fsCall(ctx, 'get_file_tree', '.', 'follow', false, (at) => [
        'fs.list',
        { path: at, recursive: true },
        () => performList(ctx.view, at, true),
        (r) => ctx.blobs.text(String(r.result_ref)),
      ]),
  },
  {
    name: 'get_task',
    params: [],
    returns: { js: 'string', py: 'str' },
    doc: 'The task this program must carry out (with any reviewer feedback).',
    audience: 'everyone',
    handler: (ctx) => () => {
      note(ctx, { tool: 'get_task' });
      return ctx.feedback === undefined ? ctx.task : `${ctx.task}\n\nFeedback on your earlier proposal:\n${ctx.feedback}`;
    },
  },
  {
    name: 'ask_llm',
    params: [
      { name: 'prompt', type: 'string' },
      { name: 'context', type: 'string', default: "''" },
    ],
    returns: { js: 'string', py: 'str' },
    doc: "A language model's answer to a prompt, with optional context (for example a file's text).",
    audience: 'everyone',
    handler:
      (ctx) =>
      async (prompt, context = '') => {
        const question = requireString(prompt, 'ask_llm', 'prompt');
        const extra = requireString(context, 'ask_llm', 'context');
        const outcome = await governedModelCall(ctx, askParams(ctx, question, extra), { tool: 'ask_llm' });
        return settle(ctx, 'ask_llm', undefined, outcome, (r) => ctx.blobs.text(String(r.output_ref)));
      },
  },
  {
    name: 'run_check',
    params: [{ name: 'name', type: 'string' }],
    returns: { js: '{ ok: boolean; exit_code: number | null; output: string }', py: 'dict' },
    doc: "Runs one of the project's checks (tests, linters) on your changes so far, sealed from the project; ok is true when it passed, output is the end of what it printed.",
    audience: 'author',
    needsChecks: true,
    handler: (ctx) => (name) => runCheckTool(ctx, name),
  },
  {
    name: 'log',
    params: [{ name: 'message', type: 'string' }],
    returns: TRUE,
    doc: "Writes a line to the agent's log.",
    audience: 'everyone',
    handler: (ctx) => (message) => {
      const text = (typeof message === 'string' ? message : (JSON.stringify(message) ?? String(message))).slice(0, MAX_LOG);
      note(ctx, { tool: 'log', message: text });
      ctx.emit({ type: 'agent.log', time: new Date(ctx.clock()).toISOString(), agentId: ctx.agentId, message: text });
      return true;
    },
  },
  {
    name: 'submit_result',
    params: [
      { name: 'summary', type: 'string' },
      { name: 'changed_files', type: 'string[]' },
    ],
    returns: TRUE,
    doc: 'Ends the work: a one-line summary and the paths you changed, for the reviewer.',
    audience: 'author',
    handler:
      (ctx) =>
      (summary, changedFiles = []) => {
        if (ctx.review !== undefined)
          throw new ToolError('submit_result: a reviewer proposes nothing; it ends with decide(decision, note)');
        const text = requireString(summary, 'submit_result', 'summary').slice(0, MAX_SUMMARY);
        if (!Array.isArray(changedFiles) || changedFiles.some((f) => typeof f !== 'string'))
          throw new ToolError('submit_result: changed_files must be a list of paths');
        ctx.submission = { summary: text, changedFiles: changedFiles as string[] };
        note(ctx, { tool: 'submit_result', summary: text, changed_files: changedFiles as string[] });
        return true;
      },
  },
  {
    name: 'get_proposal',
    params: [],
    returns: { js: 'object', py: 'dict' },
    doc: 'Reviewers only: the proposal under review, { agent, task, summary, changes: [{ path, status }], diff, files: [{ path, status, before, after }] }.',
    audience: 'reviewer',
    handler: (ctx) => () => {
      if (ctx.review === undefined)
        throw new ToolError('get_proposal: only a reviewer agent has a proposal to read (start one with `cairn review <id>`)');
      note(ctx, { tool: 'get_proposal', agent: ctx.review.reviews });
      return ctx.review.proposal();
    },
  },
  {
    name: 'decide',
    params: [
      { name: 'decision', type: 'string' },
      { name: 'note', type: 'string', default: "''" },
    ],
    returns: TRUE,
    doc: "Reviewers only, once: 'do:merge', 'defer:<reason>', 'delegate:<actor>', 'do:reply:<branch>' (the note is the feedback), 'do:custom:<what>' or 'delete:<reason>'.",
    audience: 'reviewer',
    handler:
      (ctx) =>
      (decision, comment = '') => {
        if (ctx.review === undefined)
          throw new ToolError('decide: only a reviewer agent decides; an author ends with submit_result(summary, changed_files)');
        const text = requireString(decision, 'decide', 'decision').trim();
        const why = requireString(comment, 'decide', 'note').slice(0, MAX_SUMMARY);
        const parsed = parseTriage(text);
        if (!parsed.ok) throw new ToolError(`decide: ${parsed.error.message}`);
        if (ctx.review.decision !== undefined)
          throw new ToolError(`decide: already decided ${ctx.review.decision.decision}; a reviewer decides once`);
        ctx.review.decision = { decision: formatTriage(parsed.value), note: why };
        note(ctx, { tool: 'decide', decision: ctx.review.decision.decision, note: why });
        return true;
      },
  },
  ...CAPTURE_TOOLS,
];

/** The plan of a file's read: its text. */
function readPlan(ctx: RunContext, at: string): Plan {
  return ['fs.read', { path: at }, () => performRead(ctx.view, at, false), (r) => ctx.blobs.text(String(r.content_ref))];
}

/** The plan of a whole file's write. */
function writePlan(ctx: RunContext, at: string, bytes: Buffer): Plan {
  return [
    'fs.write',
    { op: 'write', path: at, size: bytes.length, content_ref: contentHash(bytes) },
    () => performWrite(ctx.view, { op: 'write', path: at, content: bytes }),
    () => true,
  ];
}

/** A tool as a client outside the sandbox sees it (an MCP client): its name, parameters and one-line doc. */
export interface ToolDescription {
  name: string;
  params: readonly ToolParam[];
  doc: string;
}

/**
 * The tools an author gets, described for a client that calls them from outside (`cairn mcp`), from the same
 * table: `run_check` only when the project declares checks, with their names; `ask_llm` left out (such a client
 * has a model of its own).
 */
export function authorTools(checks: readonly string[]): ToolDescription[] {
  return TOOLS.filter(
    (tool) =>
      (tool.audience === 'everyone' || tool.audience === 'author') &&
      tool.name !== 'ask_llm' &&
      (tool.needsChecks !== true || checks.length > 0),
  ).map((tool) => ({
    name: tool.name,
    params: tool.params,
    doc: tool.needsChecks === true ? `${tool.doc} The checks: ${checks.map((c) => JSON.stringify(c)).join(', ')}.` : tool.doc,
  }));
}

/** The names of the tool functions an author's program gets. */
export const TOOL_NAMES: readonly string[] = TOOLS.filter((tool) => tool.audience === 'everyone' || tool.audience === 'author').map(
  (tool) => tool.name,
);

/**
 * The functions a program runs with: every tool in the table, by name (the sandbox makes them globals in
 * JavaScript and Python alike). A tool a program's role does not get still answers, with an error saying so.
 */
export function buildToolbox(ctx: RunContext): Record<string, ToolHandler> {
  return Object.fromEntries(TOOLS.map((tool) => [tool.name, tool.handler(ctx)]));
}

/**
 * Typed declarations of the tools a role gets, each with its one-line doc: TypeScript for JavaScript programs,
 * stubs for Python. `run_check` is offered only when the project declares checks, with their names.
 */
export function renderToolDeclarations(lang: 'js' | 'py', reviewer = false, checks: readonly string[] = []): string {
  const role: ToolAudience = reviewer ? 'reviewer' : 'author';
  return TOOLS.filter(
    (tool) => (tool.audience === 'everyone' || tool.audience === role) && (tool.needsChecks !== true || checks.length > 0),
  )
    .map((tool) =>
      tool.needsChecks === true ? { ...tool, doc: `${tool.doc} The checks: ${checks.map((c) => JSON.stringify(c)).join(', ')}.` } : tool,
    )
    .map((tool) => (lang === 'js' ? declareJs(tool) : declarePy(tool)))
    .join('\n');
}

function declareJs(tool: ToolSpec): string {
  const params = tool.params.map((p) => `${p.name}${p.default === undefined ? '' : '?'}: ${p.type}`).join(', ');
  return `/** ${tool.doc} */\ndeclare function ${tool.name}(${params}): Promise<${tool.returns.js}>;`;
}

function declarePy(tool: ToolSpec): string {
  const params = tool.params
    .map((p) => `${p.name}: ${p.type === 'string' ? 'str' : 'list[str]'}${p.default === undefined ? '' : ` = ${p.default}`}`)
    .join(', ');
  return `def ${tool.name}(${params}) -> ${tool.returns.py}:\n    """${tool.doc}"""`;
}
