import { ChildWorker } from './child-worker.js';

/**
 * A small pool of child processes: one is started at once and kept warm, the others only when runs overlap
 * (a command that runs one program never pays for more); a dead child is replaced before its slot is used again.
 */
export class WorkerPool {
  private readonly entry: string;
  private readonly size: number;
  private readonly idle: ChildWorker[] = [];
  private readonly waiting: ((worker: ChildWorker) => void)[] = [];
  private readonly all = new Set<ChildWorker>();
  private closed = false;

  constructor(entry: string, size: number) {
    this.entry = entry;
    this.size = size;
    this.idle.push(this.spawn());
  }

  private spawn(): ChildWorker {
    const worker = new ChildWorker(this.entry);
    this.all.add(worker);
    return worker;
  }

  /** A ready worker, waiting for one to be free if all are busy. */
  async acquire(): Promise<ChildWorker> {
    let worker = this.idle.pop() ?? (this.all.size < this.size ? this.spawn() : undefined);
    if (worker === undefined) worker = await new Promise<ChildWorker>((resolve) => this.waiting.push(resolve));
    if (worker.dead) worker = this.replace(worker);
    try {
      await worker.ready;
    } catch {
      worker = this.replace(worker);
      await worker.ready;
    }
    return worker;
  }

  /** Returns a worker after a run; a dead or distrusted one is replaced by a fresh child. */
  release(worker: ChildWorker, healthy: boolean): void {
    let next = worker;
    if (!healthy || worker.dead) {
      worker.kill();
      next = this.replace(worker);
    }
    if (this.closed) {
      next.kill();
      return;
    }
    const waiter = this.waiting.shift();
    if (waiter) waiter(next);
    else this.idle.push(next);
  }

  private replace(worker: ChildWorker): ChildWorker {
    this.all.delete(worker);
    return this.spawn();
  }

  /** Kills every child. */
  close(): void {
    this.closed = true;
    for (const worker of this.all) worker.kill();
    this.all.clear();
    this.idle.length = 0;
  }
}
