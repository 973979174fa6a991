import type { CairnError } from '@cairn/api';
import { configError, isConfigObject as isObject, readProjectConfig } from '@cairn/api';

/** One declared check: a command run over an agent's proposal in a sealed view of the project. */
export interface CheckSpec {
  name: string;
  /** argv: the program and its arguments, run in the project's folder (no shell unless the user writes one). */
  command: string[];
  /** Wall time before the whole process tree is killed and the check is `timed-out` (ms). */
  timeoutMs: number;
  /** The most output kept (stdout and stderr together, bytes); the rest is counted and dropped. */
  outputCapBytes: number;
  /** Runs on every proposal that reaches `reviewing`. */
  auto: boolean;
}

/** Defaults of a check entry's optional fields. */
export const CHECK_DEFAULTS = { timeoutMs: 600_000, outputCapBytes: 1024 * 1024, auto: true } as const;

/** Bounds of the numeric fields. */
const MAX_TIMEOUT_MS = 24 * 3600_000;
const MIN_OUTPUT_CAP = 1024;
const MAX_OUTPUT_CAP = 64 * 1024 * 1024;
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const FIELDS = ['command', 'timeoutMs', 'outputCapBytes', 'auto'];

/**
 * Reads the `checks` section of `.cairn/config.json` (no file, or no section, means no checks). A malformed
 * entry is refused whole, naming where and why; nothing is half-read:
 *
 * ```json
 * { "checks": { "test": { "command": ["pnpm", "test"], "timeoutMs": 600000, "outputCapBytes": 1048576, "auto": true } } }
 * ```
 */
export function loadCheckSettings(configPath: string): CheckSpec[] {
  const config = readConfigObject(configPath);
  return config === undefined ? [] : parseChecks(config.checks);
}

/** Parses the value of `checks` (undefined: none). */
export function parseChecks(raw: unknown): CheckSpec[] {
  if (raw === undefined) return [];
  if (!isObject(raw)) throw invalid('"checks" must be an object of name → { command, timeoutMs?, outputCapBytes?, auto? }');
  return Object.entries(raw).map(([name, entry]) => parseCheck(name, entry));
}

function parseCheck(name: string, raw: unknown): CheckSpec {
  const at = `"checks.${name}"`;
  if (!NAME.test(name)) throw invalid(`${at}: a check's name is 1–64 letters, digits, ".", "_" or "-", starting with a letter or digit`);
  if (Array.isArray(raw)) raw = { command: raw };
  if (!isObject(raw)) throw invalid(`${at} must be an object { command, timeoutMs?, outputCapBytes?, auto? }`);
  for (const key of Object.keys(raw)) if (!FIELDS.includes(key)) throw invalid(`${at}.${key} is not a setting (${FIELDS.join(', ')})`);
  const command = raw.command;
  if (typeof command === 'string')
    throw invalid(`${at}.command must be a list (argv), not a shell string; write ["sh", "-c", ${JSON.stringify(command)}] for a shell`);
  if (!Array.isArray(command) || command.length === 0)
    throw invalid(`${at}.command must be a non-empty list: the program and its arguments`);
  command.forEach((part, i) => {
    if (typeof part !== 'string') throw invalid(`${at}.command[${i}] must be text`);
    if (part.includes('\0')) throw invalid(`${at}.command[${i}] contains a NUL character`);
  });
  if (command[0] === '') throw invalid(`${at}.command[0] must name a program`);
  const timeoutMs = raw.timeoutMs ?? CHECK_DEFAULTS.timeoutMs;
  if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
    throw invalid(`${at}.timeoutMs must be a whole number of milliseconds from 1 to ${MAX_TIMEOUT_MS}`);
  const outputCapBytes = raw.outputCapBytes ?? CHECK_DEFAULTS.outputCapBytes;
  if (
    typeof outputCapBytes !== 'number' ||
    !Number.isSafeInteger(outputCapBytes) ||
    outputCapBytes < MIN_OUTPUT_CAP ||
    outputCapBytes > MAX_OUTPUT_CAP
  )
    throw invalid(`${at}.outputCapBytes must be a whole number of bytes from ${MIN_OUTPUT_CAP} to ${MAX_OUTPUT_CAP}`);
  const auto = raw.auto ?? CHECK_DEFAULTS.auto;
  if (typeof auto !== 'boolean') throw invalid(`${at}.auto must be true or false`);
  return { name, command: command as string[], timeoutMs, outputCapBytes, auto };
}

/** `.cairn/config.json` as an object, or undefined when there is none; unreadable or malformed files are refused. */
export function readConfigObject(configPath: string): Record<string, unknown> | undefined {
  return readProjectConfig(configPath, CHECKS_HINT);
}

const CHECKS_HINT = 'checks are described in SPEC.md §6.13';

function invalid(message: string): CairnError {
  return configError(message, CHECKS_HINT);
}
