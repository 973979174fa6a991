/** Why an answer was stopped before it ended. */
export type StopReason = 'timeout' | 'stall' | 'cancelled';

/**
 * The clock of one streamed answer: a deadline for the whole answer, a shorter one between two chunks once the
 * answer has started (a server that stalls mid-stream is given up on without waiting for the whole deadline),
 * and the caller's signal (a reject). `signal` aborts the request the moment any of them runs out.
 */
export class AnswerDeadline {
  private readonly controller = new AbortController();
  private readonly overall: NodeJS.Timeout;
  private stallTimer: NodeJS.Timeout | undefined;
  private stopped: StopReason | undefined;
  private readonly started = Date.now();
  private firstChunk: number | undefined;
  private readonly onCallerAbort = () => this.stop('cancelled');

  constructor(
    readonly timeoutMs: number,
    readonly stallMs: number,
    private readonly caller?: AbortSignal,
  ) {
    this.overall = setTimeout(() => this.stop('timeout'), timeoutMs);
    if (caller?.aborted) this.stop('cancelled');
    else caller?.addEventListener('abort', this.onCallerAbort, { once: true });
  }

  /** Aborts the request when any limit runs out. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Why the answer was stopped, if it was. */
  get reason(): StopReason | undefined {
    return this.stopped;
  }

  /** Milliseconds from the request to the first chunk (0 before it). */
  get firstTokenMs(): number {
    return this.firstChunk === undefined ? 0 : this.firstChunk - this.started;
  }

  /** Milliseconds since the request. */
  get elapsedMs(): number {
    return Date.now() - this.started;
  }

  /** A chunk arrived: the wait for the next one starts over. */
  touch(): void {
    this.firstChunk ??= Date.now();
    if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
    this.stallTimer = setTimeout(() => this.stop('stall'), this.stallMs);
  }

  /** Waits `ms`, or less when the answer is stopped meanwhile; false when it was. */
  wait(ms: number): Promise<boolean> {
    if (this.stopped !== undefined) return Promise.resolve(false);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.signal.removeEventListener('abort', onAbort);
        resolve(true);
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        resolve(false);
      };
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Milliseconds left before the whole deadline. */
  get leftMs(): number {
    return Math.max(0, this.timeoutMs - this.elapsedMs);
  }

  /** Stops every timer; the request is not aborted. */
  dispose(): void {
    clearTimeout(this.overall);
    if (this.stallTimer !== undefined) clearTimeout(this.stallTimer);
    this.caller?.removeEventListener('abort', this.onCallerAbort);
  }

  private stop(reason: StopReason): void {
    if (this.stopped !== undefined) return;
    this.stopped = reason;
    this.controller.abort(new DOMException(`the answer was stopped (${reason})`, 'AbortError'));
  }
}

/** How long a streamed answer may pause between two chunks once it has started: a quarter of the whole deadline, at most 30 s. */
export function stallLimitOf(timeoutMs: number): number {
  return Math.min(30_000, Math.max(250, Math.round(timeoutMs / 4)));
}
