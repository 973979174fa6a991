import { CairnError } from '@cairn/api';
import { Redis } from 'ioredis';
import { checkQueueUrl } from './redis-connection.js';

/** How long a coordinator or a worker waits, when it starts, for the queue to answer. */
const PROBE_MS = 5000;

/**
 * Asks the Redis server at `url` for a PING, once, before a coordinator or a worker starts on it: one that does
 * not answer (not running, wrong host, wrong password) is `CAIRN_REMOTE` with what it said, rather than a
 * process that retries for ever. Once started, both ride out Redis going away.
 */
export async function probeQueue(url: string, timeoutMs = PROBE_MS): Promise<void> {
  const client = new Redis(checkQueueUrl(url), {
    lazyConnect: true,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    enableOfflineQueue: false,
  });
  // the socket's own error (ECONNREFUSED, ENOTFOUND) says more than the rejection ("Connection is closed.")
  let socketError: unknown;
  client.on('error', (error) => (socketError ??= error));
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    throw new CairnError('CAIRN_REMOTE', `the queue at ${redactedUrl(url)} does not answer: ${reasonOf(socketError ?? error)}`, {
      hint: 'is redis-server running there and reachable from here? `redis-cli -u URL ping` says',
      cause: error,
    });
  } finally {
    client.disconnect();
  }
}

/** `url` without its password. */
export function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = '***';
  return parsed.toString().replace(/\/$/, '');
}

function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message === '' ? 'no answer' : message;
}
