import type { CairnEvent } from '@cairn/api';
import { describe, expect, it } from 'vitest';
import { EventBus } from './event-bus.js';

const event = (agentId: string, type: 'agent.started' | 'agent.failed' = 'agent.started'): CairnEvent =>
  type === 'agent.started'
    ? { type, time: '2026-11-25T00:00:00.000Z', agentId, run: 1 }
    : { type, time: '2026-11-25T00:00:00.000Z', agentId, code: 'x', reason: 'y' };

describe('the event bus', () => {
  it('gives a listener every event until it unsubscribes', () => {
    const bus = new EventBus();
    const seen: string[] = [];
    const stop = bus.subscribe((e) => seen.push((e as { agentId: string }).agentId));
    bus.emit(event('a'));
    stop();
    bus.emit(event('b'));
    expect(seen).toEqual(['a']);
  });

  it('buffers a stream for its reader, filtered, and ends it after the event `until` matches', async () => {
    const bus = new EventBus();
    const stream = bus.stream(
      (e) => 'agentId' in e && e.agentId === 'a',
      (e) => e.type === 'agent.failed',
    );
    bus.emit(event('a'));
    bus.emit(event('b'));
    bus.emit(event('a', 'agent.failed'));
    bus.emit(event('a'));
    const read: string[] = [];
    for await (const e of stream) read.push(e.type);
    expect(read).toEqual(['agent.started', 'agent.failed']);
  });

  it('ends every open stream on close, and a reader that returns early stops its buffering', async () => {
    const bus = new EventBus();
    const open = bus.stream();
    const left = bus.stream();
    const pending = open.next();
    await left.return?.();
    bus.emit(event('a'));
    expect((await pending).value).toMatchObject({ agentId: 'a' });
    bus.close();
    expect(await open.next()).toEqual({ value: undefined, done: true });
    expect(await left.next()).toEqual({ value: undefined, done: true });
  });
});
