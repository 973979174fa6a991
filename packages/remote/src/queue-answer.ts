import type { Queue, QueueEvents } from 'bullmq';

/** How long a read of the queue may take before Redis is taken for away (its command still runs once it is back). */
const QUEUE_ANSWER_MS = 5000;

/** How long a stop waits for Redis to let the queue close in order. */
const STOP_GRACE_MS = 5000;

/** Redis did not answer in time. */
export class QueueAway extends Error {}

/** `work`, unless Redis takes longer than `QUEUE_ANSWER_MS` to answer (`QueueAway`). */
export async function answered<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new QueueAway('the queue does not answer')), QUEUE_ANSWER_MS))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** 'done' when `work` settled within `ms`, else 'late' (the work goes on unwatched). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<'done' | 'late'> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  try {
    return await Promise.race([
      work.then(
        () => 'done' as const,
        () => 'done' as const,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Closes the queue in order: the followers end, then the event stream and the queue. While Redis is away that
 * would wait for it to come back; after the grace the connections are dropped instead.
 */
export async function closeQueue(followers: Promise<unknown>[], events: QueueEvents, queue: Queue): Promise<void> {
  const orderly = (async () => {
    await Promise.allSettled(followers);
    await events.close();
    await queue.close();
  })();
  if ((await settledWithin(orderly, STOP_GRACE_MS)) === 'late') {
    void events.disconnect().catch(() => undefined);
    void queue.disconnect().catch(() => undefined);
  }
}
