import { readFileSync } from 'node:fs';
import { AGENT_STATES } from '@cairn/api';
import { describe, expect, it } from 'vitest';
import { AGENT_MOVES } from './agent-moves.js';

/** The table of moves SPEC §6.2 draws: each state with the states it may move to. */
function specMoves(): Record<string, string[]> {
  const spec = readFileSync(new URL('../../../../spec/SPEC.md', import.meta.url), 'utf8');
  const section = spec.slice(spec.indexOf('### 6.2 Agents'), spec.indexOf('### 6.3'));
  const table = /```text\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const moves: Record<string, string[]> = {};
  for (const line of table.trim().split('\n')) {
    const [from, to] = line.split('→').map((part) => part.trim());
    moves[from!] = to === '(none)' ? [] : to!.split('|').map((state) => state.trim());
  }
  return moves;
}

describe('SPEC §6.2 and the code agree on the states and their moves', () => {
  it('names every state of AGENT_STATES once, with the moves the lifecycle allows', () => {
    const drawn = specMoves();
    expect(Object.keys(drawn).sort()).toEqual([...AGENT_STATES].sort());
    for (const state of AGENT_STATES) expect([...drawn[state]!].sort(), state).toEqual([...AGENT_MOVES[state]].sort());
  });
});
