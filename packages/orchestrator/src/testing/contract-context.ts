import type { AgentInfo, CairnApi, CairnErrorCode, CairnEvent } from '@cairn/api';
import { expect } from 'vitest';

export interface ContractTemp {
  root: string;
  write(path: string, content: string): void;
  read(path: string): string;
}

/** An implementation under test, on a project holding the sample files, synced once. */
export interface ContractSubject {
  api: CairnApi;
  temp: ContractTemp;
  close(): Promise<void>;
}

/** What every part of the contract gets: the API under test, its project on disk, and helpers over both. */
export interface ContractContext {
  api(): CairnApi;
  subject(): ContractSubject;
  /** Opens a second subject of its own (closed by the caller). */
  open(): Promise<ContractSubject>;
  /** A folder of its own for each test, so tests sharing the project never touch each other's files. */
  folder(what: string): string;
  /** Spawns a `code` agent and waits until it is reviewing. */
  reviewing(code: string, task?: string): Promise<AgentInfo>;
  /** An accepted agent that added `path`. */
  accepted(path: string): Promise<AgentInfo>;
  /** Files written by the test, imported so agents see them. */
  given(files: Record<string, string>): Promise<void>;
  /** Expects `call` to fail with a `CairnError` of `code` (and a message matching `message`). */
  refuses(call: Promise<unknown>, code: CairnErrorCode, message?: RegExp): Promise<void>;
}

/** A program that writes one file and says so. */
export const writes = (path: string, content: string, summary = `wrote ${path}`) =>
  `await write_file(${JSON.stringify(path)}, ${JSON.stringify(content)});\nawait submit_result(${JSON.stringify(summary)}, [${JSON.stringify(path)}]);\n`;

/** A program that replaces text in one file. */
export const edits = (path: string, from: string, to: string) =>
  `const text = await read_file(${JSON.stringify(path)});\nawait write_file(${JSON.stringify(path)}, text.replace(${JSON.stringify(from)}, ${JSON.stringify(to)}));\n`;

/** A reviewer's program: reads the proposal, then decides. */
export const decides = (decision: string, note: string) =>
  `const proposal = await get_proposal();\nlog('reviewing ' + proposal.agent);\nawait decide(${JSON.stringify(decision)}, ${JSON.stringify(note)});\n`;

export const MATH = 'export function add(a, b) {\n  return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n';
export const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** The helpers of a context over the subject `current` returns. */
export function contractContext(current: () => ContractSubject, open: () => Promise<ContractSubject>): ContractContext {
  let folders = 0;
  const api = () => current().api;
  const ctx: ContractContext = {
    api,
    subject: current,
    open,
    folder: (what) => `contract-${++folders}-${what}`,
    async reviewing(code, task = 'contract task') {
      const agent = await api().spawn(task, { code });
      const done = await api().wait(agent.id);
      expect(done.state, done.reason).toBe('reviewing');
      return done;
    },
    async accepted(path) {
      const agent = await ctx.reviewing(writes(path, 'accepted\n'));
      const outcome = await api().accept(agent.id);
      expect(outcome.ok).toBe(true);
      return outcome.agent;
    },
    async given(files) {
      for (const [path, content] of Object.entries(files)) current().temp.write(path, content);
      await api().sync();
    },
    async refuses(call, code, message) {
      await expect(call).rejects.toMatchObject({
        name: 'CairnError',
        code,
        ...(message === undefined ? {} : { message: expect.stringMatching(message) }),
      });
    },
  };
  return ctx;
}
export function isOf(event: CairnEvent, agentId: string): boolean {
  return 'agentId' in event && event.agentId === agentId;
}

/** Reads a stream until an event matches (included), then closes it. */
export async function readUntil(stream: AsyncIterator<CairnEvent>, match: (event: CairnEvent) => boolean): Promise<CairnEvent[]> {
  const seen: CairnEvent[] = [];
  try {
    for (let next = await stream.next(); next.done !== true; next = await stream.next()) {
      seen.push(next.value);
      if (match(next.value)) break;
    }
  } finally {
    await stream.return?.();
  }
  return seen;
}

/** Reads a stream to its end. */
export async function readAll(stream: AsyncIterator<CairnEvent>): Promise<CairnEvent[]> {
  const seen: CairnEvent[] = [];
  for (let next = await stream.next(); next.done !== true; next = await stream.next()) seen.push(next.value);
  return seen;
}
