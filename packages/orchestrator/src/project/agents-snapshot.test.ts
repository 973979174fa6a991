import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { agentSpec } from '@cairn/api';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { toAgentInfo } from '../agents/agent-info.js';
import { AgentStore } from '../agents/agent-store.js';
import { AgentsSnapshot } from './agents-snapshot.js';

describe('state/agents.json', () => {
  let dir: string;
  let now: number;
  let store: AgentStore;
  let other: AgentStore;
  const clock = () => now;
  const snapshotFile = () => join(dir, 'state', 'agents.json');

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-snapshot-'));
    now = Date.UTC(2026, 0, 1);
    store = new AgentStore(join(dir, 'bin.db'), clock);
    other = new AgentStore(join(dir, 'bin.db'), clock);
  });
  afterEach(() => {
    store.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const spawn = (from: AgentStore, task: string) => {
    now += 1;
    return from.create(agentSpec(task, { code: 'await submit_result("ok", [])' }), false);
  };
  /** What the file must say: every record, in the store's order, and the queue, as one JSON.stringify. */
  const expected = (time: number) =>
    `${JSON.stringify(
      {
        project: dir,
        updatedAt: new Date(time).toISOString(),
        queue: store.queued().map((a) => a.id),
        agents: store.list().map(toAgentInfo),
      },
      null,
      2,
    )}\n`;

  it('lists every agent and the queue, as the whole written at once would', () => {
    const snapshot = new AgentsSnapshot(store, join(dir, 'state'), dir);
    snapshot.write(now);
    expect(readFileSync(snapshotFile(), 'utf8')).toBe(expected(now));
    const a = spawn(store, 'first');
    spawn(store, 'second');
    now += 1;
    store.transition(a.id, ['queued'], 'running');
    snapshot.write(now);
    expect(readFileSync(snapshotFile(), 'utf8')).toBe(expected(now));
    expect(JSON.parse(readFileSync(snapshotFile(), 'utf8')).agents.map((x: { task: string }) => x.task)).toEqual(['first', 'second']);
  });

  it('sees what another process wrote since the last rewrite, including a commit that carries an earlier time', () => {
    const snapshot = new AgentsSnapshot(store, join(dir, 'state'), dir);
    const a = spawn(store, 'mine');
    snapshot.write(now);
    const b = spawn(other, 'theirs');
    now += 1;
    other.transition(a.id, ['queued'], 'running');
    snapshot.write(now);
    expect(readFileSync(snapshotFile(), 'utf8')).toBe(expected(now));
    // a write whose clock read came before the last rewrite's newest time
    now -= 5;
    other.transition(b.id, ['queued'], 'running');
    snapshot.write(now);
    const written = JSON.parse(readFileSync(snapshotFile(), 'utf8'));
    expect(written.agents.find((x: { id: string }) => x.id === b.id).state).toBe('running');
    expect(readFileSync(snapshotFile(), 'utf8')).toBe(expected(now));
  });

  it('reads every record again when the count shows one it missed', () => {
    // another process whose records carry a time far behind this one's
    const lagging = new AgentStore(join(dir, 'bin.db'), () => now - 60_000);
    try {
      const snapshot = new AgentsSnapshot(store, join(dir, 'state'), dir);
      spawn(store, 'early');
      snapshot.write(now);
      spawn(lagging, 'late');
      snapshot.write(now);
      expect(JSON.parse(readFileSync(snapshotFile(), 'utf8')).agents.map((x: { task: string }) => x.task)).toEqual(['late', 'early']);
      expect(readFileSync(snapshotFile(), 'utf8')).toBe(expected(now));
    } finally {
      lagging.close();
    }
  });

  it('reads every record again after the clock was set back', () => {
    const snapshot = new AgentsSnapshot(store, join(dir, 'state'), dir);
    const a = spawn(store, 'first');
    snapshot.write(now);
    now -= 3_600_000;
    other.transition(a.id, ['queued'], 'running');
    snapshot.write(now);
    expect(JSON.parse(readFileSync(snapshotFile(), 'utf8')).agents[0].state).toBe('running');
    expect(readFileSync(snapshotFile(), 'utf8')).toBe(expected(now));
  });
});
