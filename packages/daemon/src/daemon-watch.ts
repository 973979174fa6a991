/** How long a daemon that has left a request unanswered is given to answer a probe, unless `CAIRN_DAEMON_TIMEOUT_MS` says otherwise. */
const DEFAULT_TIMEOUT_MS = 5000;

/** `CAIRN_DAEMON_TIMEOUT_MS`, or 5 s: how long a daemon is given to answer the probe of a request it left unanswered. */
export function daemonTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const value = Number(env.CAIRN_DAEMON_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : DEFAULT_TIMEOUT_MS;
}

/** How a request is watched: after how long without an answer the daemon is probed, the probe, and the error when it fails. */
export interface AnswerWatch {
  quietMs: number;
  /** True when the daemon answers a second, cheap request in time. */
  probe(): Promise<boolean>;
  /** The error for a daemon that does not answer, given how long the request waited. */
  unanswered(waitedMs: number): Error;
}

/**
 * Runs one request to the daemon, without a plain timeout (some requests are long by right: an accept that
 * waits for checks): each time it has gone `quietMs` without finishing, the daemon is probed; while the probe is
 * answered the request may go on, and once a probe is not, the request is aborted (its signal) and this rejects
 * with `unanswered`.
 */
export async function answeredInTime<T>(work: (signal: AbortSignal) => Promise<T>, watch: AnswerWatch): Promise<T> {
  const started = Date.now();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  const gaveUp = new Promise<never>((_resolve, reject) => {
    const arm = () => {
      timer = setTimeout(() => {
        void watch.probe().then((answered) => {
          if (done) return;
          if (answered) return arm();
          controller.abort();
          reject(watch.unanswered(Date.now() - started));
        });
      }, watch.quietMs);
    };
    arm();
  });
  const working = work(controller.signal);
  // once the watch gave up, how the aborted request fails is no news
  working.catch(() => undefined);
  try {
    return await Promise.race([working, gaveUp]);
  } finally {
    done = true;
    clearTimeout(timer);
  }
}
