import type { CairnEvent } from '@cairn/api';

type Listener = (event: CairnEvent) => void;

/** Fans events out to listeners and async iterators; an iterator buffers what its reader has not taken yet. */
export class EventBus {
  private readonly listeners = new Set<Listener>();
  private readonly closers = new Set<() => void>();

  emit(event: CairnEvent): void {
    for (const listener of [...this.listeners]) listener(event);
  }

  /** Calls `listener` with every event until the returned function is called. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Every event from now on, optionally filtered, until `until` matches or the reader stops. */
  stream(filter: (event: CairnEvent) => boolean = () => true, until?: (event: CairnEvent) => boolean): AsyncIterableIterator<CairnEvent> {
    const buffer: CairnEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    const unsubscribe = this.subscribe((event) => {
      if (done || !filter(event)) return;
      buffer.push(event);
      if (until?.(event)) finish();
      wake?.();
    });
    const finish = () => {
      done = true;
      unsubscribe();
      this.closers.delete(close);
    };
    const close = () => {
      finish();
      wake?.();
    };
    this.closers.add(close);
    const iterator: AsyncIterableIterator<CairnEvent> = {
      async next(): Promise<IteratorResult<CairnEvent>> {
        while (buffer.length === 0) {
          if (done) return { value: undefined, done: true };
          await new Promise<void>((resolve) => (wake = resolve));
          wake = undefined;
        }
        return { value: buffer.shift()!, done: false };
      },
      async return(): Promise<IteratorResult<CairnEvent>> {
        finish();
        buffer.length = 0;
        wake?.();
        return { value: undefined, done: true };
      },
      [Symbol.asyncIterator]() {
        return iterator;
      },
    };
    return iterator;
  }

  /** Ends every open stream (on close). */
  close(): void {
    for (const close of [...this.closers]) close();
    this.listeners.clear();
  }
}
