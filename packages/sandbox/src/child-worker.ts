import { type ChildProcess, fork } from 'node:child_process';
import { dirname } from 'node:path';
import { PARENT_PID_VARIABLE } from './child/orphan-watchdog.js';
import { type DoneMessage, type FromChild, parseFromChild, type ToChild } from './protocol.js';

/** How a run on a child ended: its report, or the child's death. */
export type ChildOutcome = { kind: 'done'; done: DoneMessage } | { kind: 'died'; reason: string; outOfMemory: boolean };

/**
 * What V8 writes to stderr when it aborts a process on a heap it cannot grow: some allocations in an
 * isolate (a huge array or string near the isolate's limit) are fatal to the whole process, not catchable.
 */
const FATAL_OOM =
  /is_heap_oom = 1|Reached heap limit|JavaScript heap out of memory|Fatal process out of memory|Fatal JavaScript invalid size error/;

/** Receives what a child sends during one run. */
export interface RunListener {
  onCall(callId: number, name: string, args: string): void;
  onLog(line: string): void;
}

/**
 * One supervised child process holding the isolate engine. It runs one program at a time; if it dies or
 * sends anything that is not the protocol, the run in progress ends and the child is never used again.
 */
export class ChildWorker {
  private readonly child: ChildProcess;
  readonly ready: Promise<void>;
  private active: { runId: number; listener: RunListener; settle: (outcome: ChildOutcome) => void } | undefined;
  private deadReason: string | undefined;
  private outOfMemory = false;
  private stderr = '';
  private error: string | undefined;

  constructor(entry: string) {
    // The child runs in its own folder (never a working folder that may be deleted) and knows its parent's pid, so
    // that it dies with the parent even if the parent dies before the child's watchdog starts.
    this.child = fork(entry, [], {
      cwd: dirname(entry),
      env: { ...process.env, [PARENT_PID_VARIABLE]: String(process.pid) },
      execArgv: ['--no-node-snapshot'],
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-4000);
      if (FATAL_OOM.test(this.stderr)) this.outOfMemory = true;
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const onReady = (message: unknown) => {
        if (parseFromChild(message)?.type === 'ready') {
          this.child.off('message', onReady);
          resolve();
        }
      };
      this.child.on('message', onReady);
      this.child.once('exit', () =>
        reject(new Error(`sandbox child exited before it was ready${this.stderr ? `: ${this.stderr.trim()}` : ''}`)),
      );
    });
    this.ready.catch(() => undefined);
    this.child.on('message', (message) => this.receive(parseFromChild(message)));
    // 'close' rather than 'exit': it comes after stderr has been read to the end, which says why V8 aborted.
    // An error (a send that met a closed pipe, a failed spawn) is followed by 'close', which says how the child
    // ended: a child killed mid-write reports the SIGKILL, not the EPIPE its death caused.
    this.child.on('close', (code, signal) =>
      this.die(signal ? `killed by ${signal}` : code !== null ? `exited with code ${code}` : `failed: ${this.error ?? 'unknown error'}`),
    );
    this.child.on('error', (error) => {
      this.error ??= error.message;
      this.kill();
    });
  }

  /** True once the child has died or been killed. */
  get dead(): boolean {
    return this.deadReason !== undefined;
  }

  /** Sends a run and resolves when it is done or the child dies. */
  execute(message: Extract<ToChild, { type: 'run' }>, listener: RunListener): Promise<ChildOutcome> {
    if (this.deadReason !== undefined) return Promise.resolve({ kind: 'died', reason: this.deadReason, outOfMemory: false });
    return new Promise<ChildOutcome>((resolve) => {
      this.active = { runId: message.runId, listener, settle: resolve };
      this.send(message);
    });
  }

  send(message: ToChild): void {
    if (this.deadReason !== undefined || !this.child.connected) return;
    try {
      this.child.send(message);
    } catch {
      this.kill();
    }
  }

  kill(): void {
    if (!this.child.killed && this.child.exitCode === null) this.child.kill('SIGKILL');
  }

  private receive(message: FromChild | undefined): void {
    const active = this.active;
    if (message === undefined) {
      this.kill();
      return;
    }
    if (active === undefined || message.type === 'ready' || message.runId !== active.runId) return;
    switch (message.type) {
      case 'call':
        active.listener.onCall(message.callId, message.name, message.args);
        break;
      case 'log':
        active.listener.onLog(message.line);
        break;
      case 'done':
        this.active = undefined;
        active.settle({ kind: 'done', done: message });
        break;
    }
  }

  private die(reason: string): void {
    if (this.deadReason !== undefined) return;
    this.deadReason = reason + (this.stderr ? ` (${this.stderr.trim().split('\n').slice(-1)[0]})` : '');
    const active = this.active;
    this.active = undefined;
    active?.settle({ kind: 'died', reason: this.deadReason, outOfMemory: this.outOfMemory });
  }
}
