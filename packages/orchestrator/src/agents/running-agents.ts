/** One agent running in this process: what stops it, and when it has stopped. */
interface RunningAgent {
  controller: AbortController;
  ended: Promise<void>;
}

/**
 * The agents this process is running, so a reject can stop one at once: its model request is aborted (the
 * server sees the connection close) and no further round starts.
 */
export class RunningAgents {
  private readonly agents = new Map<string, RunningAgent>();

  /** Registers a run; the returned `end` must be called when it is over. */
  start(id: string): { signal: AbortSignal; end: () => void } {
    const controller = new AbortController();
    let end!: () => void;
    const ended = new Promise<void>((resolve) => {
      end = () => {
        if (this.agents.get(id)?.controller === controller) this.agents.delete(id);
        resolve();
      };
    });
    this.agents.set(id, { controller, ended });
    return { signal: controller.signal, end };
  }

  /** True when this process runs the agent. */
  has(id: string): boolean {
    return this.agents.has(id);
  }

  /** Resolves once this process's run of the agent is over (its overlay closed), at once when there is none. */
  async ended(id: string): Promise<void> {
    await this.agents.get(id)?.ended;
  }

  /** Stops the agent if this process runs it, and resolves once its run is over; false when it runs elsewhere or not at all. */
  async stop(id: string, reason: string): Promise<boolean> {
    const running = this.agents.get(id);
    if (running === undefined) return false;
    running.controller.abort(new Error(reason));
    await running.ended;
    return true;
  }
}
