import { CairnError, readProjectConfig } from '@cairn/api';

/** What a coordinator does with a queued agent no trusted worker takes: leave it queued, or run it itself. */
export type WithoutWorkers = 'wait' | 'run-here';

/** The default of `workerWaitMs`: how long a queued agent waits for a worker, none connected, before it is said. */
export const WORKER_WAIT_MS = 60_000;

/**
 * `queue`, `serveWorkers`, `workerWaitMs` and `withoutWorkers` of `.cairn/config.json`: what `cairn up` uses when
 * its flags do not say.
 */
export interface QueueSettings {
  queue?: string;
  serveWorkers?: string;
  workerWaitMs?: number;
  withoutWorkers?: WithoutWorkers;
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
  if (config.workerWaitMs !== undefined) settings.workerWaitMs = checkWorkerWait(config.workerWaitMs, '.cairn/config.json: workerWaitMs');
  if (config.withoutWorkers !== undefined)
    settings.withoutWorkers = checkWithoutWorkers(config.withoutWorkers, '.cairn/config.json: withoutWorkers');
  return settings;
}

/** `value` as a wait for workers (ms, 1 s to one day); `CAIRN_CONFIG` naming `where` otherwise. */
export function checkWorkerWait(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1000 || value > 86_400_000)
    throw new CairnError('CAIRN_CONFIG', `${where} must be a whole number of milliseconds from 1000 to 86400000`, {
      hint: `e.g. ${WORKER_WAIT_MS} (a minute)`,
    });
  return value;
}

/** `value` as `wait` or `run-here`; `CAIRN_CONFIG` naming `where` otherwise. */
export function checkWithoutWorkers(value: unknown, where: string): WithoutWorkers {
  if (value !== 'wait' && value !== 'run-here')
    throw new CairnError('CAIRN_CONFIG', `${where} must be "wait" or "run-here" (got ${JSON.stringify(value)})`, {
      hint: '"run-here" runs an agent no trusted worker takes on the coordinator itself; "wait" leaves it queued',
    });
  return value;
}
