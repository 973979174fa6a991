import type { AgentBudgets, AgentLimits, ExecSpec, ModelOptions, ProgramLang, SpawnOptions } from './agent-options.js';
import { CairnError } from './errors.js';
import { projectPath } from './project-path.js';

/** The model a model-written agent uses unless told otherwise. */
export const DEFAULT_MODEL = 'qwen2.5-coder:7b';

/** Limits of one program run, unless a spawn sets its own. */
export const DEFAULT_LIMITS: AgentLimits = { wallMs: 60_000, cpuMs: 30_000, memoryMb: 128 };

/** What an agent may spend over its life, unless a spawn sets its own. */
export const DEFAULT_BUDGETS: AgentBudgets = { tokens: 200_000, bytes: 64 * 1024 * 1024, calls: 10_000, wallMs: 15 * 60_000, repairs: 3 };

/** The longest task Cairn takes, in characters. */
const MAX_TASK = 20_000;

/** What a new agent is: its task, where its program comes from, and its limits and budgets, defaults filled in. */
export interface AgentSpec {
  task: string;
  origin: 'code' | 'model';
  lang: ProgramLang;
  model?: string;
  /** The user's program, for `code` agents. */
  code?: string;
  limits: AgentLimits;
  budgets: AgentBudgets;
  scope?: string[];
  /** How the model is asked (model agents). */
  modelOptions?: ModelOptions;
  /** For an agent CLI run in a writable view: what runs (its program, `code`, is written from what it wrote). */
  exec?: ExecSpec;
  /** For an environment an MCP client opened (`cairn mcp`): the client's name. Its work is the client's calls. */
  session?: { client: string };
}

/**
 * Spawn options read from untrusted input (a request body, a file signal, a caller in plain JavaScript): every
 * field is checked, and a wrong one is refused with `CAIRN_INVALID_ARGUMENT` naming it. The one parser of the
 * API, the daemon's routes and the signals.
 */
export function parseSpawnOptions(input: unknown): SpawnOptions {
  if (input === undefined) return {};
  if (typeof input !== 'object' || input === null || Array.isArray(input)) invalid('spawn options must be an object');
  const value = input as Record<string, unknown>;
  const options: SpawnOptions = {};
  if (value.code !== undefined) {
    if (typeof value.code !== 'string') invalid("code must be the program's source text");
    if (value.code.trim() === '') invalid('the program is empty');
    options.code = value.code;
  }
  if (value.lang !== undefined) {
    if (value.lang !== 'js' && value.lang !== 'py') invalid(`unknown language "${String(value.lang)}" (js or py)`);
    options.lang = value.lang;
  }
  if (value.model !== undefined) {
    if (typeof value.model !== 'string' || value.model.trim() === '') invalid('the model name is empty');
    options.model = value.model;
  }
  if (value.limits !== undefined) options.limits = numbers<AgentLimits>(value.limits, 'limit', Object.keys(DEFAULT_LIMITS), []);
  if (value.budgets !== undefined)
    options.budgets = numbers<AgentBudgets>(value.budgets, 'budget', Object.keys(DEFAULT_BUDGETS), ['repairs']);
  if (value.scope !== undefined) {
    if (!Array.isArray(value.scope) || value.scope.some((p) => typeof p !== 'string')) invalid('scope must be a list of paths');
    options.scope = (value.scope as string[]).map(projectPath);
  }
  if (value.modelOptions !== undefined) options.modelOptions = parseModelOptions(value.modelOptions);
  if (value.exec !== undefined) {
    if (options.code !== undefined || options.model !== undefined) invalid('an exec agent runs its command: give no code and no model');
    options.exec = parseExecSpec(value.exec);
  }
  return options;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An exec agent's spec read from untrusted input: a command, variable names, home entries (relative, inside the home folder). */
export function parseExecSpec(input: unknown): ExecSpec {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) invalid('exec must be an object { command, env, home }');
  const value = input as Record<string, unknown>;
  const list = (field: string): string[] => {
    const items = value[field] ?? [];
    if (!Array.isArray(items) || items.some((item) => typeof item !== 'string' || item === '' || item.includes('\0')))
      invalid(`exec.${field} must be a list of non-empty texts`);
    return [...(items as string[])];
  };
  const command = list('command');
  if (command.length === 0) invalid('exec.command is empty: say which program to run (cairn spawn --exec -- claude)');
  const env = list('env');
  const bad = env.find((name) => !ENV_NAME.test(name));
  if (bad !== undefined) invalid(`"${bad}" is not an environment variable name`);
  const home = list('home').map((entry) => entry.replace(/^~\//, '').replace(/\/+$/, ''));
  const outside = home.find(
    (entry) => entry.startsWith('/') || entry.split('/').some((part) => part === '..' || part === '.' || part === ''),
  );
  if (outside !== undefined) invalid(`"${outside}" is not an entry of the home folder (give it as .claude or ~/.claude)`);
  const spec: ExecSpec = { command, env: [...new Set(env)], home: [...new Set(home)] };
  if (value.cwd !== undefined && value.cwd !== '') spec.cwd = projectPath(value.cwd);
  return spec;
}

/** Model options read from untrusted input: whole numbers of at least 1, a temperature from 0 to 2, a seed of at least 0. */
export function parseModelOptions(input: unknown): ModelOptions {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) invalid('the model options must be an object');
  const out: ModelOptions = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (key === 'temperature') {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 2)
        invalid(`the temperature must be a number from 0 to 2 (got ${JSON.stringify(value)})`);
      out.temperature = value;
      continue;
    }
    if (!['contextTokens', 'maxOutputTokens', 'seed', 'timeoutMs'].includes(key))
      invalid(`unknown model option "${key}" (one of contextTokens, maxOutputTokens, temperature, seed, timeoutMs)`);
    const min = key === 'seed' ? 0 : 1;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min)
      invalid(`the ${key} model option must be a whole number of at least ${min} (got ${JSON.stringify(value)})`);
    out[key as 'contextTokens' | 'maxOutputTokens' | 'seed' | 'timeoutMs'] = value;
  }
  return out;
}

/** A new agent's spec from its task and spawn options (checked as `parseSpawnOptions` checks them); `defaultModel` is the project's. */
export function agentSpec(task: unknown, input: SpawnOptions | undefined, defaultModel: string = DEFAULT_MODEL): AgentSpec {
  if (typeof task !== 'string' || task.trim() === '')
    throw new CairnError('CAIRN_INVALID_ARGUMENT', 'a task is required: say what the agent should do', {
      hint: 'cairn spawn "add docstrings to src/util.py"',
    });
  if (task.length > MAX_TASK) invalid(`the task is ${task.length} characters long; keep it under ${MAX_TASK}`);
  const options = parseSpawnOptions(input);
  const spec: AgentSpec = {
    task: task.trim(),
    origin: options.code === undefined && options.exec === undefined ? 'model' : 'code',
    lang: options.lang ?? 'js',
    limits: { ...DEFAULT_LIMITS, ...options.limits },
    budgets: { ...DEFAULT_BUDGETS, ...options.budgets },
  };
  if (options.exec !== undefined) spec.exec = { ...options.exec };
  else if (options.code !== undefined) spec.code = options.code;
  else spec.model = options.model?.trim() ?? defaultModel;
  if (options.scope !== undefined) spec.scope = [...options.scope];
  if (options.modelOptions !== undefined && spec.origin === 'model') spec.modelOptions = { ...options.modelOptions };
  return spec;
}

function numbers<T extends object>(input: unknown, what: string, known: readonly string[], zeroOk: readonly string[]): Partial<T> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) invalid(`the ${what}s must be an object of numbers`);
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(input)) {
    if (value === undefined) continue;
    if (!known.includes(key)) invalid(`unknown ${what} "${key}" (one of ${known.join(', ')})`);
    const min = zeroOk.includes(key) ? 0 : 1;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min)
      invalid(`the ${key} ${what} must be a number of at least ${min} (got ${JSON.stringify(value)})`);
    out[key] = Math.floor(value);
  }
  return out as Partial<T>;
}

function invalid(message: string): never {
  throw new CairnError('CAIRN_INVALID_ARGUMENT', message);
}
