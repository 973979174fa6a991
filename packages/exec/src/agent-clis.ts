import { spawn } from 'node:child_process';
import { accessSync, constants, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The agent CLIs tests can drive offline: Claude Code and Codex. */
export type AgentCliName = 'claude' | 'codex';

/** The versions scripts/install-agent-clis.sh installs, whose wire protocols the scripted servers speak. */
export const AGENT_CLI_VERSIONS = { claude: '2.1.328', codex: '0.169.0' } as const satisfies Record<AgentCliName, string>;

/** Where an agent CLI is, or one line saying what is missing and how to install it. */
export type AgentCliLookup = { path: string } | { missing: string };

/** The variable that turns a missing agent CLI from a skipped test into a failed one (set to anything but '' or '0'). */
export const REQUIRE_AGENT_CLIS = 'CAIRN_REQUIRE_AGENT_CLIS';

const LABELS: Record<AgentCliName, string> = { claude: 'Claude Code', codex: 'Codex' };

function readVersion(file: string): string | undefined {
  try {
    const value = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
    return typeof value.version === 'string' ? value.version : undefined;
  } catch {
    return undefined;
  }
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function subfolders(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => join(dir, entry.name));
  } catch {
    return [];
  }
}

/** The CLI in one install prefix: its path and version, or undefined when it is not there. */
function findIn(name: AgentCliName, prefix: string): { path: string; version: string | undefined } | undefined {
  const modules = join(prefix, 'node_modules');
  if (name === 'claude') {
    const path = join(modules, '.bin', 'claude');
    return isExecutable(path) ? { path, version: readVersion(join(modules, '@anthropic-ai', 'claude-code', 'package.json')) } : undefined;
  }
  // The native binary itself: the npm package's Node wrapper leaves it running when the wrapper is killed.
  const platforms = subfolders(join(modules, '@openai')).filter((dir) => /\/codex-[a-z]+-[a-z0-9]+$/.test(dir));
  for (const target of platforms.flatMap((dir) => subfolders(join(dir, 'vendor')))) {
    const path = join(target, 'bin', 'codex');
    if (isExecutable(path)) return { path, version: readVersion(join(target, 'codex-package.json')) };
  }
  return undefined;
}

/** The install prefixes looked in, in order: `$CAIRN_AGENT_CLIS`, then `~/.cache/cairn/agent-clis`. */
export function agentCliPrefixes(env: NodeJS.ProcessEnv = process.env): string[] {
  const fallback = join(env.HOME || homedir(), '.cache', 'cairn', 'agent-clis');
  return env.CAIRN_AGENT_CLIS ? [env.CAIRN_AGENT_CLIS, fallback] : [fallback];
}

/**
 * Finds Claude Code or Codex, at the version scripts/install-agent-clis.sh pins, in `$CAIRN_AGENT_CLIS` or
 * `~/.cache/cairn/agent-clis`; else says what is missing and how to install it.
 */
export function findAgentCli(name: AgentCliName, env: NodeJS.ProcessEnv = process.env): AgentCliLookup {
  const wanted = AGENT_CLI_VERSIONS[name];
  const prefixes = agentCliPrefixes(env);
  const others: string[] = [];
  for (const prefix of prefixes) {
    const found = findIn(name, prefix);
    if (found?.version === wanted) return { path: found.path };
    if (found !== undefined) others.push(`${found.version ?? 'an unknown version'} at ${found.path}`);
  }
  const install = env.CAIRN_AGENT_CLIS
    ? `bash scripts/install-agent-clis.sh "${env.CAIRN_AGENT_CLIS}"`
    : 'bash scripts/install-agent-clis.sh';
  const seen = others.length > 0 ? ` (found ${others.join(', ')})` : '';
  return { missing: `missing ${LABELS[name]} ${wanted} (${name}) in ${prefixes.join(' or ')}${seen}: ${install}` };
}

/** Whether `CAIRN_REQUIRE_AGENT_CLIS` asks tests to fail, not skip, where an agent CLI is missing. */
export function agentClisRequired(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[REQUIRE_AGENT_CLIS];
  return value !== undefined && value !== '' && value !== '0';
}

/**
 * An agent CLI for a test file: where it is, and whether its tests run. When it is missing, says so on stdout, with
 * whether its tests are skipped or (`CAIRN_REQUIRE_AGENT_CLIS` set) fail.
 */
export function agentCliForTests(name: AgentCliName, env: NodeJS.ProcessEnv = process.env): { cli: AgentCliLookup; runs: boolean } {
  const cli = findAgentCli(name, env);
  const required = agentClisRequired(env);
  if ('missing' in cli)
    process.stdout.write(`${cli.missing} (${required ? `${REQUIRE_AGENT_CLIS} is set: its tests fail` : 'its tests are skipped'})\n`);
  return { cli, runs: 'path' in cli || required };
}

/** Where an agent CLI runs offline: the scripted model server's base URL, and an empty folder to be its home. */
export interface AgentCliSetup {
  /** `startScriptedAnthropic(…).baseUrl` for Claude Code, `startScriptedResponses(…).baseUrl` (with `/v1`) for Codex. */
  baseUrl: string;
  home: string;
}

/** Codex's configuration: one provider on the scripted server, no retries, and nothing that reaches the network. */
function codexConfig(baseUrl: string): string {
  return [
    'model = "gpt-5.5"',
    'model_provider = "local"',
    'check_for_update_on_startup = false',
    '',
    '[features]',
    'plugins = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    '[feedback]',
    'enabled = false',
    '',
    '[model_providers.local]',
    'name = "local"',
    `base_url = ${JSON.stringify(baseUrl)}`,
    'env_key = "OPENAI_API_KEY"',
    'wire_api = "responses"',
    'request_max_retries = 0',
    'stream_max_retries = 0',
    'stream_idle_timeout_ms = 10000',
    'supports_websockets = false',
    '',
  ].join('\n');
}

/**
 * The whole environment to run an agent CLI offline against a scripted server: `HOME`, `TMPDIR` and its
 * configuration folder inside `home`, a dummy key, no telemetry, no updates, no retries; of this process's
 * environment only `PATH` (and the test run's `CAIRN_TEST_RUN`) is kept. For Codex it writes
 * `home/.codex/config.toml`.
 */
export function agentCliEnv(name: AgentCliName, setup: AgentCliSetup, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const tmp = join(setup.home, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const common: Record<string, string> = { PATH: env.PATH ?? '/usr/local/bin:/usr/bin:/bin', HOME: setup.home, TMPDIR: tmp };
  if (env.CAIRN_TEST_RUN) common.CAIRN_TEST_RUN = env.CAIRN_TEST_RUN;
  if (name === 'claude')
    return {
      ...common,
      ANTHROPIC_BASE_URL: setup.baseUrl,
      ANTHROPIC_API_KEY: 'dummy',
      CLAUDE_CONFIG_DIR: join(setup.home, '.claude'),
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      CLAUDE_CODE_MAX_RETRIES: '0',
      // Marks each request `main`, `subagent`, `compaction`…, which the scripted server reads.
      CLAUDE_CODE_GATEWAY_HINT_HEADERS: '1',
      DISABLE_AUTOUPDATER: '1',
      // Lets --dangerously-skip-permissions run as root.
      IS_SANDBOX: '1',
    };
  const codexHome = join(setup.home, '.codex');
  mkdirSync(codexHome, { recursive: true });
  writeFileSync(join(codexHome, 'config.toml'), codexConfig(setup.baseUrl));
  return { ...common, CODEX_HOME: codexHome, OPENAI_API_KEY: 'dummy' };
}

/** The arguments that run `prompt` to its end without asking anything: `claude -p …`, `codex exec …`. */
export function agentCliArgs(name: AgentCliName, prompt: string): string[] {
  return name === 'claude'
    ? ['-p', prompt, '--dangerously-skip-permissions']
    : ['exec', '--json', '--dangerously-bypass-approvals-and-sandbox', '--skip-git-repo-check', prompt];
}

/** How an agent CLI's run ended. */
export interface AgentCliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Set when it ran past its time and was killed. */
  timedOut: boolean;
}

/** Options of `runAgentCli`. */
export interface RunAgentCliOptions {
  /** The binary `findAgentCli` found. */
  path: string;
  prompt: string;
  cwd: string;
  /** `agentCliEnv(…)`. */
  env: Record<string, string>;
  /** When to kill it (default 120 s): a CLI whose server does not answer retries for ever. */
  timeoutMs?: number;
  /** Arguments after the usual ones (`--output-format stream-json --verbose`). */
  extraArgs?: readonly string[];
}

/**
 * Runs an agent CLI on `prompt` in `cwd`, asynchronously (a scripted server in this process must go on
 * answering), with stdin closed, in its own process group, which is killed when it ends or runs out of time.
 */
export function runAgentCli(name: AgentCliName, options: RunAgentCliOptions): Promise<AgentCliRun> {
  const child = spawn(options.path, [...agentCliArgs(name, options.prompt), ...(options.extraArgs ?? [])], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // the group has already gone
    }
  };
  let stdout = '';
  let stderr = '';
  let timedOut = false;
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, options.timeoutMs ?? 120_000);
  return new Promise((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // What the CLI started and left running would otherwise keep its output open.
    child.once('exit', killGroup);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
