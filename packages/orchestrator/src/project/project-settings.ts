import { configError, isConfigObject, readProjectConfig } from '@cairn/api';
import { loadCheckSettings } from '@cairn/checks/settings';
import { loadModelSettings } from '@cairn/model/settings';
import type { ProjectLayout } from '@cairn/workspace/layout';
import { loadWorkingTreeSettings } from '@cairn/workspace/settings';
import { loadInboxSettings } from '../inbox/inbox-settings.js';

/** The sections `.cairn/config.json` may hold. */
export const SETTINGS_SECTIONS: readonly string[] = ['checks', 'model', 'inbox', 'workingTree', 'workers', 'queue', 'serveWorkers', 'exec'];

/**
 * Checks every section of `.cairn/config.json` at once, as each is read where it is used, so a wrong entry is
 * refused (`CAIRN_CONFIG`, naming it: `"workingTree.fsync" must be true or false`) when agents are made or
 * the daemon starts, not ignored until the day the section is read. Returns the top-level keys that name no
 * section (a typo, or a newer Cairn's setting): they are ignored, and worth a warning.
 */
export function checkProjectSettings(layout: Pick<ProjectLayout, 'root' | 'configPath'>): { unknown: string[] } {
  const config = readProjectConfig(layout.configPath, 'the settings are described in SPEC.md §6');
  if (config === undefined) return { unknown: [] };
  loadCheckSettings(layout.configPath);
  loadModelSettings(layout.configPath);
  loadInboxSettings(layout.root, layout.configPath);
  loadWorkingTreeSettings(layout.configPath);
  checkRemoteSettings(config);
  checkExecSettings(config);
  return { unknown: Object.keys(config).filter((key) => !SETTINGS_SECTIONS.includes(key)) };
}

/**
 * The sections a coordinator reads (`remote/`, a room above this one: its loaders read them when workers come),
 * checked here for their types with the same words.
 */
function checkRemoteSettings(config: Record<string, unknown>): void {
  for (const key of ['queue', 'serveWorkers'] as const) {
    const value = config[key];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === ''))
      throw configError(
        `"${key}" must be a string`,
        key === 'queue' ? '"queue": "redis://127.0.0.1:6379"' : '"serveWorkers": "0.0.0.0:7420"',
      );
  }
  const workers = config.workers;
  if (workers === undefined) return;
  const hint = '"workers": { "gpu-box": "ed25519:…" }, keys as `cairn worker enroll` prints them';
  if (!isConfigObject(workers)) throw configError('"workers" must map each worker name to its public key', hint);
  for (const [name, key] of Object.entries(workers))
    if (typeof key !== 'string' || key.trim() === '') throw configError(`"workers.${name}" must be the worker's public key (a text)`, hint);
}

/** `exec`: what every agent CLI run in a view gets, `{ "env": ["ANTHROPIC_API_KEY"], "home": [".claude"] }`. */
function checkExecSettings(config: Record<string, unknown>): void {
  const exec = config.exec;
  if (exec === undefined) return;
  const hint = '"exec": { "env": ["ANTHROPIC_API_KEY"], "home": [".claude"] }';
  if (!isConfigObject(exec)) throw configError('"exec" must be an object', hint);
  for (const [key, value] of Object.entries(exec)) {
    if (key !== 'env' && key !== 'home') throw configError(`"exec.${key}" is not a setting (env or home)`, hint);
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === ''))
      throw configError(`"exec.${key}" must be a list of names`, hint);
  }
}
