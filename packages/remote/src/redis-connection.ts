import { CairnError } from '@cairn/api';
import type { ConnectionOptions } from 'bullmq';

/** BullMQ's connection to the queue at `url` (`redis://HOST:PORT`): it retries while Redis is away. */
export function redisConnection(url: string): ConnectionOptions {
  return { url: checkQueueUrl(url), maxRetriesPerRequest: null, retryStrategy: (times: number) => Math.min(times * 200, 2000) };
}

/** `url` when it is a Redis URL; `CAIRN_INVALID_ARGUMENT` when not. */
export function checkQueueUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalid(url);
  }
  if ((parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') || parsed.hostname === '') throw invalid(url);
  return url;
}

function invalid(url: string): CairnError {
  return new CairnError('CAIRN_INVALID_ARGUMENT', `the queue must be a Redis URL, redis://HOST:PORT (got ${JSON.stringify(url)})`, {
    hint: 'e.g. redis://127.0.0.1:6379',
  });
}
