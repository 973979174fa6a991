import type { ExecSpec } from '@cairn/api';
import type { OneCall } from '@cairn/sandbox';

/** What one call in an environment came to: the tool's value, or why it failed (said to the client's model). */
export type SessionAnswer = { ok: true; value: unknown } | { ok: false; message: string; hint?: string };

/** What a command run in an environment's writable view came to. */
export type CommandAnswer =
  | {
      ok: true;
      /** How the command ended: `exited` (with its code), `killed`, `timed-out` or `stopped`. */
      status: string;
      exitCode?: number;
      /** The end of what it printed (stdout and stderr together). */
      output: string;
      /** The paths its writes changed in the environment, each a governed call. */
      changed: string[];
      /** Writes refused, each with its reason (a protected path, the policy). */
      refused: string[];
      /** False where the kernel refused the namespaces and a copy of the project was used. */
      sealed: boolean;
    }
  | { ok: false; message: string; hint?: string };

/** A request to an environment: a call (its one-line program), a command, or the end of the session. */
export type SessionRequest =
  | { type: 'call'; program: string; call: OneCall; ends: boolean; answer: (answer: SessionAnswer) => void }
  | { type: 'command'; command: ExecSpec; wallMs: number; answer: (answer: CommandAnswer) => void }
  | { type: 'end'; summary: string };

/** The requests a client sends one environment, taken in order by the environment's stretch. */
export class SessionMailbox {
  private readonly queue: SessionRequest[] = [];
  private wake: (() => void) | undefined;
  /** Set once the stretch has ended: nothing more is taken. */
  ended = false;

  put(request: SessionRequest): void {
    this.queue.push(request);
    this.wake?.();
  }

  /** Requests sent and not yet taken. */
  get waiting(): number {
    return this.queue.length;
  }

  /** The next request; `undefined` once `interrupt` is called with none waiting. */
  async take(): Promise<SessionRequest | undefined> {
    while (this.queue.length === 0) {
      if (this.interrupted) return undefined;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
    return this.queue.shift();
  }

  private interrupted = false;

  /** Wakes the stretch to end (the agent was stopped). */
  interrupt(): void {
    this.interrupted = true;
    this.wake?.();
  }

  /** Answers every request still waiting with why the environment took none of them. */
  drain(message: string): void {
    this.ended = true;
    for (const request of this.queue.splice(0)) {
      if (request.type !== 'end') request.answer({ ok: false, message });
    }
  }
}
