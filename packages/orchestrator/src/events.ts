import type { AgentState, ChangeInfo, ConflictInfo, InboxDiagnostic, InboxResult } from './types.js';

interface Base {
  /** ISO 8601. */
  time: string;
}
interface AgentBase extends Base {
  agentId: string;
}

/** Everything the orchestrator reports; every surface renders these and nothing else. */
export type CairnEvent =
  | (AgentBase & { type: 'agent.queued'; task: string })
  | (AgentBase & { type: 'agent.started'; run: number })
  | (AgentBase & { type: 'agent.generating'; model: string; round: number })
  | (AgentBase & { type: 'agent.repairing'; round: number; problem: string })
  | (AgentBase & { type: 'agent.tool-called'; tool: string; path?: string; ok: boolean; message?: string })
  | (AgentBase & { type: 'agent.denied'; tool: string; effect: string; path?: string; reason: string })
  | (AgentBase & { type: 'agent.log'; message: string })
  | (AgentBase & { type: 'agent.submitted'; summary: string; changes: ChangeInfo[] })
  | (AgentBase & { type: 'agent.accepted'; applied: string[]; conflicts: ConflictInfo[]; state: AgentState })
  | (AgentBase & { type: 'agent.undone'; restored: string[] })
  | (AgentBase & { type: 'agent.rejected'; reason: string })
  | (AgentBase & { type: 'agent.restored' })
  | (AgentBase & { type: 'agent.replied'; feedback: string })
  | (AgentBase & { type: 'agent.failed'; code: string; reason: string })
  | (AgentBase & { type: 'agent.requeued'; reason: string })
  | (AgentBase & { type: 'agent.decided'; reviews: string; decision: string; note: string; thread?: string })
  | (Base & { type: 'inbox.received'; agentId: string; thread: string })
  | (Base & { type: 'inbox.processed'; agentId?: string; result: InboxResult })
  | (Base & { type: 'inbox.invalid'; agentId?: string; thread: string; diagnostics: InboxDiagnostic[] })
  | (Base & { type: 'sync.progress'; phase: 'scan' | 'import' | 'prune'; done: number; total: number; bytes: number })
  | (Base & { type: 'sync.changed'; paths: string[] })
  | (Base & { type: 'error'; agentId?: string; code: string; message: string });

/** The `type` of every event. */
export type CairnEventType = CairnEvent['type'];

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
