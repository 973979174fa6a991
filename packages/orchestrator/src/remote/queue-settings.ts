import { CairnError } from '../api/errors.js';
import { readProjectConfig } from '../workspace/project-config.js';

/** `queue` and `serveWorkers` of `.cairn/config.json`: what `cairn up` uses when its flags do not say. */
export interface QueueSettings {
  queue?: string;
  serveWorkers?: string;
}

/** Reads the queue settings of `.cairn/config.json`; a wrong type is refused with `CAIRN_CONFIG`. */
export function loadQueueSettings(configPath: string): QueueSettings {
  const config = readProjectConfig(configPath, 'the queue settings are described in SPEC.md §6.12');
  if (config === undefined) return {};
  const settings: QueueSettings = {};
  for (const key of ['queue', 'serveWorkers'] as const) {
    const value = config[key];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '')
      throw new CairnError('CAIRN_CONFIG', `.cairn/config.json: ${key} must be a string`, {
        hint: key === 'queue' ? '"queue": "redis://127.0.0.1:6379"' : '"serveWorkers": "0.0.0.0:7420"',
      });
    settings[key] = value;
  }
  return settings;
}
