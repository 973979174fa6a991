import { describe, expect, it } from 'vitest';
import { Scheduler } from './scheduler.js';

/** A queue of ids and a run function whose runs finish when the test says so. */
function harness(ids: string[]) {
  const queued = [...ids];
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const run = (id: string) => {
    queued.splice(queued.indexOf(id), 1);
    started.push(id);
    return new Promise<void>((resolve) => finishers.set(id, resolve));
  };
  const finish = async (id: string) => {
    finishers.get(id)!();
    await new Promise((resolve) => setImmediate(resolve));
  };
  return { queued, started, run, finish };
}

describe('the scheduler', () => {
  it('starts queued agents in order, never more than the pool at once, and fills a slot as one frees', async () => {
    const h = harness(['a', 'b', 'c', 'd']);
    const scheduler = new Scheduler(2, 'all', () => [...h.queued], h.run);
    scheduler.kick();
    expect(h.started).toEqual(['a', 'b']);
    expect(scheduler.active).toEqual(['a', 'b']);
    await h.finish('b');
    expect(h.started).toEqual(['a', 'b', 'c']);
    await h.finish('a');
    await h.finish('c');
    await h.finish('d');
    await scheduler.idle();
    expect(h.started).toEqual(['a', 'b', 'c', 'd']);
    expect(scheduler.active).toEqual([]);
  });

  it("runs only this process's agents with the own scope, and none with the none scope", async () => {
    const own = harness(['x', 'y']);
    const mine = new Scheduler(3, 'own', () => [...own.queued], own.run);
    mine.kick();
    expect(own.started).toEqual([]);
    mine.adopt('y');
    mine.kick();
    expect(own.started).toEqual(['y']);
    await own.finish('y');
    const none = harness(['z']);
    const recorder = new Scheduler(3, 'none', () => [...none.queued], none.run);
    recorder.adopt('z');
    recorder.kick();
    expect(none.started).toEqual([]);
  });

  it('starts nothing once stopped, and idle waits for what runs', async () => {
    const h = harness(['a', 'b']);
    const scheduler = new Scheduler(1, 'all', () => [...h.queued], h.run);
    scheduler.kick();
    scheduler.stop();
    let idle = false;
    const waiting = scheduler.idle().then(() => (idle = true));
    await new Promise((resolve) => setImmediate(resolve));
    expect(idle).toBe(false);
    await h.finish('a');
    await waiting;
    expect(h.started).toEqual(['a']);
  });
});
