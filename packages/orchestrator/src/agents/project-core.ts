import type { AgentFS } from '@cairn/agentfs';
import type { Sandbox } from '@cairn/sandbox';
import type { ReceiptSigner } from '../governance/receipt-signer.js';
import type { AgentRecord, AgentStore } from './agent-store.js';
import type { CairnEvent } from '../api/events.js';
import type { GovernanceSource } from '../governance/default-manifest.js';
import type { ProjectLayout } from '../workspace/layout.js';
import type { ModelClient } from '../model/ollama-client.js';
import type { ProposalForReview } from '../run/run-context.js';

/** What the parts of a project share: stores, keys, the sandbox, the model, the clock and the event sink. */
export interface ProjectCore {
  layout: ProjectLayout;
  stable: AgentFS;
  store: AgentStore;
  signer: ReceiptSigner;
  clock: () => number;
  /** `pid:token` of this process, written into the agents it runs. */
  owner: string;
  /** True in a process that runs the whole queue (a daemon): an agent it was running when it died runs again. */
  rerunsInterrupted: boolean;
  defaultModel: string;
  sandbox(): Sandbox;
  modelClient(): ModelClient;
  emit(event: CairnEvent): void;
  /** The governance a new agent gets: the defaults, tightened by the project's manifest. */
  governanceFor(record: AgentRecord): GovernanceSource;
  /** Called after every change of an agent's record: keeps the state snapshot, previews and inbox threads current. */
  recordChanged(record: AgentRecord): void;
  /** The proposal a reviewer reads with `get_proposal()`. */
  proposalForReview(agentId: string): ProposalForReview;
  /** Writes a reviewer's decision into the reviewed agent's thread: the thread's name, or why not. */
  reviewerDecided(reviewer: AgentRecord, decision: { decision: string; note: string }): { thread: string } | { why: string };
  /** Processes a thread a decision was just written into (as the daemon would on the file's change). */
  afterDecision(thread: string): Promise<void>;
}
