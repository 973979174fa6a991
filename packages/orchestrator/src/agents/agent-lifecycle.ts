import type { AgentState, CairnEvent } from '@cairn/api';
import type { AgentPatch, AgentRecord, AgentStore } from './agent-store.js';

/** What the code that changed a record already knows of the agent, so an observer need not read it again. */
export interface KnownOfAgent {
  /** The proposal's unified diff, read from the overlay the change was made with. */
  diff?: string;
}

/** Called with an agent's record after every change to it. */
export type RecordObserver = (record: AgentRecord, known: KnownOfAgent) => void;

/**
 * Every change of an agent's record goes through here: the store's compare-and-set, then the observers that
 * keep files beside the record current (previews, inbox threads, the state snapshot), then the event.
 */
export class AgentLifecycle {
  private readonly observers = new Set<RecordObserver>();

  constructor(
    private readonly store: AgentStore,
    private readonly emit: (event: CairnEvent) => void,
    private readonly clock: () => number,
  ) {}

  /** Calls `observer` after every change of a record, until the returned function is called. */
  observe(observer: RecordObserver): () => void {
    this.observers.add(observer);
    return () => this.observers.delete(observer);
  }

  /**
   * Moves an agent from one of `from` to `to` with `patch`, tells the observers, and emits the event `eventOf`
   * makes of the new record (with the time of the move). The observers run in the move's transaction, so what
   * they keep in bin.db (an inbox thread's event) and the move's event commit with the move: one sync of bin.db.
   */
  move(
    id: string,
    from: readonly AgentState[],
    to: AgentState,
    patch: AgentPatch,
    verb: string,
    eventOf?: (record: AgentRecord, time: string) => CairnEvent,
    known: KnownOfAgent = {},
  ): AgentRecord {
    let event: CairnEvent | undefined;
    let failure: { error: unknown } | undefined;
    const record = this.store.transition(id, from, to, patch, verb, (moved) => {
      // an observer that fails (a preview that cannot be written) does not undo the move: it is kept, and the
      // observer's error is thrown once it is, in place of the move's event (which the history keeps)
      failure = this.tell(moved, known);
      event = eventOf?.(moved, this.now());
      return event;
    });
    if (failure !== undefined) throw failure.error;
    if (event !== undefined) this.emit(event);
    return record;
  }

  /** Tells the observers of a record changed without a move (created, or patched in place); every one is told. */
  changed(record: AgentRecord, known: KnownOfAgent = {}): void {
    const failure = this.tell(record, known);
    if (failure !== undefined) throw failure.error;
  }

  /** Tells every observer, one failing or not; the first failure, if any. */
  private tell(record: AgentRecord, known: KnownOfAgent): { error: unknown } | undefined {
    let failure: { error: unknown } | undefined;
    for (const observer of [...this.observers]) {
      try {
        observer(record, known);
      } catch (error) {
        failure ??= { error };
      }
    }
    return failure;
  }

  /** The current time as events carry it. */
  now(): string {
    return new Date(this.clock()).toISOString();
  }
}
