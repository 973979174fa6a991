import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeAtomically } from '@cairn/api';
import { type CheckSpec, parseChecks, readConfigObject } from './check-settings.js';

/**
 * Adds checks to `.cairn/config.json`, keeping everything else in it and every check already declared
 * (a name already there is left as the user wrote it). A malformed file is refused, never overwritten.
 * Returns the names added.
 */
export function addChecksToConfig(configPath: string, checks: readonly CheckSpec[]): string[] {
  const config = readConfigObject(configPath) ?? {};
  parseChecks(config.checks);
  const existing = (config.checks ?? {}) as Record<string, unknown>;
  const added: string[] = [];
  const next: Record<string, unknown> = { ...existing };
  for (const check of checks) {
    if (Object.hasOwn(existing, check.name)) continue;
    next[check.name] = { command: check.command, timeoutMs: check.timeoutMs, outputCapBytes: check.outputCapBytes, auto: check.auto };
    added.push(check.name);
  }
  if (added.length === 0) return added;
  mkdirSync(dirname(configPath), { recursive: true });
  writeAtomically(configPath, `${JSON.stringify({ ...config, checks: next }, null, 2)}\n`, { durable: true });
  return added;
}
