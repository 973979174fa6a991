import { randomBytes } from 'node:crypto';
import { AgentFS, Overlay } from '@cairn/agentfs';
import { Journal, MemoryJournalStore } from '@cairn/air';
import type { CairnEvent } from '@cairn/api';
import { DEFAULT_BUDGETS } from '@cairn/api';
import { compileGovernance, createAgentKernel, defaultGovernance, ReceiptSigner } from '@cairn/governance';
import { BlobStore, TouchedLog } from '@cairn/workspace';
import { buildRunContext, type RunSource } from '../run/build-run-context.js';
import type { ModelCall, RunContext } from '../run/run-context.js';

/** A live run over real SQLite stores in memory: the agent's overlay of `files`, its kernel, journal and events. */
export interface RunFixture extends AsyncDisposable {
  ctx: RunContext;
  overlay: Overlay;
  journal: Journal;
  events: CairnEvent[];
}

/** A run context as an agent's first run gets it, under the default governance (or a reviewer's). */
export function makeRunFixture(
  files: Record<string, string | Uint8Array>,
  options: { budgets?: Partial<typeof DEFAULT_BUDGETS>; reviewer?: boolean; callModel?: ModelCall } = {},
): RunFixture {
  const stable = AgentFS.open(':memory:');
  for (const [path, content] of Object.entries(files)) {
    const folder = path.includes('/') ? '/' + path.slice(0, path.lastIndexOf('/')) : undefined;
    if (folder !== undefined) stable.fs.mkdir(folder, { recursive: true });
    stable.fs.writeFile('/' + path, content);
  }
  const overlay = Overlay.open(':memory:', stable);
  const blobs = new BlobStore(overlay.upper);
  const journal = Journal.create(new MemoryJournalStore());
  const budgets = { ...DEFAULT_BUDGETS, ...options.budgets };
  const governance = compileGovernance(defaultGovernance({ role: options.reviewer === true ? 'reviewer' : 'author', budgets }));
  const signer = new ReceiptSigner(randomBytes(32));
  const kernel = createAgentKernel(governance, journal, signer, { tokens: 0, bytes: 0, checkMs: 0 }, () => 1_000_000n);
  const events: CairnEvent[] = [];
  const source: RunSource = {
    agentId: 'a1b2',
    task: 'the task',
    model: 'test-model',
    governance,
    kernel,
    journal,
    blobs,
    overlay,
    viewBlobs: blobs,
    touched: new TouchedLog(overlay.upper, blobs),
    transaction: (fn) => overlay.upper.transaction(fn),
    signer,
    callModel: options.callModel ?? (() => Promise.reject(new Error('no model in this test'))),
    emit: (event) => events.push(event),
    clockOf: () => () => Date.UTC(2026, 10, 25),
  };
  return {
    ctx: buildRunContext(source, 1),
    overlay,
    journal,
    events,
    async [Symbol.asyncDispose]() {
      overlay.close();
      stable.close();
    },
  };
}
