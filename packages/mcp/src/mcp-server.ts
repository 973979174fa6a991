import type { Readable, Writable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { authorTools, CAIRN_VERSION, type CommandAnswer, type Project, type SessionAnswer } from '@cairn/orchestrator';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type ProgressToken,
  ReadResourceRequestSchema,
  type ServerNotification,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { CallProblem, type CallResult, Environments, type HeldCall, type HeldEnvironment } from './environments.js';
import { LineTransport } from './line-transport.js';
import { readResource, resourceList, resourceTemplates } from './resources.js';
import { argumentsOf, positional, SESSION_TOOL_NAMES, toolList } from './tool-list.js';

/** How `serveMcp` runs. */
export interface McpServeOptions {
  project: Project;
  /** The project's declared checks now (offered through `run_check`), read at each listing. */
  checks: () => readonly string[];
  input: Readable;
  output: Writable;
  /** The longest a call holds its answer when the client asked for no progress (ms); then it answers "still running". */
  holdMs?: number;
  /** How often a long call tells a client that asked for progress that it still runs (ms). */
  progressEveryMs?: number;
  /** Resolves once the project's working tree is imported (a new environment waits for it). */
  ready?: Promise<unknown>;
  /** Called with each environment opened, for the events of its agent to reach a daemon's listeners. */
  onEnvironment?: (id: string) => void;
}

/** Under a client's usual 60 s timeout, with room for a slow machine. */
const HOLD_MS = 45_000;
const PROGRESS_EVERY_MS = 5_000;
/** The most calls one environment keeps waiting; more are refused at once. */
const MAX_WAITING = 64;
/** The most one call's arguments may hold (bytes of JSON): a larger write is refused before it runs. */
const MAX_CALL_BYTES = 8 * 1024 * 1024;
/** The longest a command runs unless the call says (s). */
const COMMAND_SECONDS = 600;

type Notify = (notification: ServerNotification) => Promise<void>;

/**
 * Serves MCP on a pair of streams (a client's stdio) until the client leaves: tools from the tool table acting in
 * environments that are Cairn agents, and their diffs and journals as resources. Resolves with how it ended,
 * once every environment it opened has been ended (each kept as a proposal to review).
 */
export async function serveMcp(options: McpServeOptions): Promise<{ closed: Promise<void> }> {
  const { project } = options;
  const holdMs = options.holdMs ?? HOLD_MS;
  const progressEveryMs = options.progressEveryMs ?? PROGRESS_EVERY_MS;
  const server = new Server(
    { name: 'cairn', version: CAIRN_VERSION },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Cairn gives you environments: copy-on-write views of this project in which every call is checked by policy and journaled. Open one with environment_open, work in it with its id, and end with submit_result; the developer reviews and accepts your changes.',
    },
  );
  const client = () =>
    (server.getClientVersion()?.name ?? 'client')
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .slice(0, 40) || 'client';
  const environments = new Environments(project, client);
  const toolsNow = () => new Map<string, Tool>(toolList(options.checks()).map((tool) => [tool.name, tool]));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [...toolsNow().values()] }));
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: resourceList(environments.ids()) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: resourceTemplates() }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readResource(project, request.params.uri));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra): Promise<CallToolResult> => {
    const { name } = request.params;
    const tools = toolsNow();
    const tool = tools.get(name);
    if (tool === undefined)
      throw protocolError(ErrorCode.InvalidParams, `unknown tool "${name}"; the tools are ${[...tools.keys()].join(', ')}`);
    const checked = argumentsOf(tool, request.params.arguments);
    if ('problem' in checked) return resultOf({ text: checked.problem, isError: true });
    const progress = request.params._meta?.progressToken;
    const hold: Hold = {
      holdMs,
      progressEveryMs,
      notify: extra.sendNotification,
      signal: extra.signal,
      ...(progress === undefined ? {} : { progress }),
    };
    try {
      const args = checked.args;
      if (SESSION_TOOL_NAMES.has(name)) return resultOf(await sessionCall(name, args, hold));
      const env = await environments.require(String(args.environment));
      const spec = authorTools(options.checks()).find((described) => described.name === name)!;
      const values = positional(spec, args);
      if (JSON.stringify(values).length > MAX_CALL_BYTES)
        throw new CallProblem(
          `${name}: the arguments are more than ${MAX_CALL_BYTES} bytes, more than one call carries; nothing was written`,
        );
      const start = () =>
        (name === 'submit_result'
          ? env.session.submit(String(args.summary), (args.changed_files as string[] | undefined) ?? [])
          : env.session.call(name, values)
        ).then(textOfAnswer);
      return resultOf(await answerOf(env, begin(env, name, start), hold));
    } catch (error) {
      if (error instanceof CallProblem) return resultOf({ text: error.message, isError: true });
      throw error;
    }
  });

  async function sessionCall(name: string, args: Record<string, unknown>, hold: Hold): Promise<CallResult> {
    if (name === 'environment_list') {
      const agents = (await project.agents()).filter((agent) => agent.kind.startsWith('mcp:'));
      return {
        text: JSON.stringify(
          agents.map(({ id, state, task, summary }) => ({ id, state, task, ...(summary === undefined ? {} : { summary }) })),
          null,
          2,
        ),
      };
    }
    if (name === 'environment_open') {
      if (args.environment !== undefined) {
        const env = await environments.resume(String(args.environment));
        options.onEnvironment?.(env.session.id);
        return { text: `environment ${env.session.id} is open again, over its changes so far` };
      }
      if (typeof args.task !== 'string' || args.task.trim() === '')
        throw new CallProblem('environment_open needs a task (or the environment to continue)');
      let env: HeldEnvironment;
      await options.ready;
      try {
        env = environments.open(args.task);
      } catch (error) {
        throw new CallProblem((error as Error).message);
      }
      options.onEnvironment?.(env.session.id);
      return {
        text: `opened environment ${env.session.id} over the project as it is now. Pass "environment": "${env.session.id}" to every other tool; paths are relative to the project root.`,
      };
    }
    const env = await environments.require(String(args.environment));
    if (name === 'show_diff') {
      const diff = await project.diff(env.session.id, args.paths as string[] | undefined);
      return { text: diff === '' ? 'no changes yet' : diff };
    }
    if (name === 'wait') {
      const held = env.held;
      if (held === undefined) return { text: `nothing is running in ${env.session.id}` };
      return answerOf(env, held, hold);
    }
    const seconds = typeof args.timeout_seconds === 'number' && args.timeout_seconds > 0 ? args.timeout_seconds : COMMAND_SECONDS;
    const start = () =>
      env.session
        .command(['sh', '-c', String(args.command)], {
          wallMs: Math.round(seconds * 1000),
          ...(typeof args.cwd === 'string' && args.cwd !== '' ? { cwd: args.cwd } : {}),
        })
        .then(textOfCommand);
    return answerOf(env, begin(env, `run_command ${JSON.stringify(String(args.command).slice(0, 80))}`, start), hold);
  }

  const transport = new LineTransport(options.input, options.output);
  const closed = new Promise<void>((resolve) => {
    server.onclose = () => {
      void environments.closeAll('the client disconnected before submitting').finally(resolve);
    };
  });
  await server.connect(transport);
  return { closed };
}

/**
 * Starts a call in an environment, refused at once while a call held past its answer still runs (the client
 * must `wait` for it) or when too many wait already (a client flooding the server).
 */
function begin(env: HeldEnvironment, label: string, start: () => Promise<CallResult>): HeldCall {
  if (env.held !== undefined && !env.held.done)
    throw new CallProblem(`${env.held.label} is still running in ${env.session.id}: call wait with this environment for its result first`);
  if (env.session.waiting >= MAX_WAITING)
    throw new CallProblem(
      `environment ${env.session.id} has ${env.session.waiting} calls waiting; wait for their answers before sending more`,
    );
  const held: HeldCall = { label, started: Date.now(), result: start(), done: false };
  void held.result.finally(() => {
    held.done = true;
  });
  return held;
}

/**
 * Waits for a call's result: as long as it takes when the client asked for progress (told every few seconds),
 * otherwise up to the hold, after which the call is kept for `wait` and the client is told it still runs.
 */
async function answerOf(env: HeldEnvironment, held: HeldCall, hold: Hold): Promise<CallResult> {
  if (await waitFor(held.result, held.label, held.started, hold)) {
    if (env.held === held) env.held = undefined;
    return held.result;
  }
  env.held = held;
  const seconds = Math.round((Date.now() - held.started) / 1000);
  return { text: `${held.label} is still running (${seconds} s so far); call wait with environment "${env.session.id}" for its result` };
}

/** How a call waits for its result. */
interface Hold {
  holdMs: number;
  progressEveryMs: number;
  progress?: ProgressToken;
  notify: Notify;
  signal: AbortSignal;
}

/** True once `result` settles; false when the client stops waiting (it cancelled, or the hold ran out). */
async function waitFor(result: Promise<unknown>, label: string, started: number, hold: Hold): Promise<boolean> {
  let tick = 0;
  const timer =
    hold.progress === undefined
      ? undefined
      : setInterval(() => {
          const seconds = Math.round((Date.now() - started) / 1000);
          void hold
            .notify({
              method: 'notifications/progress',
              params: { progressToken: hold.progress!, progress: ++tick, message: `${label}: running for ${seconds} s` },
            })
            .catch(() => undefined);
        }, hold.progressEveryMs);
  const stop = new AbortController();
  try {
    const waits: Promise<boolean>[] = [
      result.then(
        () => true,
        () => true,
      ),
    ];
    if (hold.progress === undefined) waits.push(delay(hold.holdMs, false, { signal: stop.signal }).catch(() => false));
    waits.push(new Promise((resolve) => hold.signal.addEventListener('abort', () => resolve(false), { once: true })));
    return await Promise.race(waits);
  } finally {
    stop.abort();
    clearInterval(timer);
  }
}

function textOfAnswer(answer: SessionAnswer): CallResult {
  if (!answer.ok) return { text: `${answer.message}${answer.hint === undefined ? '' : `\nhint: ${answer.hint}`}`, isError: true };
  const value = answer.value;
  return { text: typeof value === 'string' ? value : JSON.stringify(value, null, 2) };
}

function textOfCommand(answer: CommandAnswer): CallResult {
  if (!answer.ok) return { text: `${answer.message}${answer.hint === undefined ? '' : `\nhint: ${answer.hint}`}`, isError: true };
  const ended =
    answer.status === 'exited'
      ? `exit code ${answer.exitCode ?? 0}`
      : `${answer.status}${answer.exitCode === undefined ? '' : ` (exit code ${answer.exitCode})`}`;
  const lines = [
    `${ended}; ${count(answer.changed.length, 'path')} changed in the environment${answer.changed.length === 0 ? '' : `: ${answer.changed.slice(0, 50).join(', ')}${answer.changed.length > 50 ? ', …' : ''}`}`,
    ...answer.refused.map((reason) => `refused: ${reason}`),
    ...(answer.sealed ? [] : ['(the kernel refused the namespaces: the command ran in a copy of the project)']),
    answer.output === '' ? '(no output)' : `output:\n${answer.output}`,
  ];
  return { text: lines.join('\n') };
}

/** A JSON-RPC error with its code and a message of Cairn's alone (the SDK's McpError adds a prefix its client adds again). */
function protocolError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function resultOf(result: CallResult): CallToolResult {
  return { content: [{ type: 'text', text: result.text }], ...(result.isError === true ? { isError: true } : {}) };
}
