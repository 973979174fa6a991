import type { AgentFS } from '@cairn/agentfs';
import type { Sandbox } from '@cairn/sandbox';
import type { ReceiptSigner } from './adapters/receipt-signer.js';
import type { AgentRecord, AgentStore } from './agents/agent-store.js';
import type { CairnEvent } from './events.js';
import type { GovernanceSource } from './governance/default-manifest.js';
import type { ProjectLayout } from './layout.js';
import type { ModelClient } from './model/index.js';

/** What the parts of a project share: stores, keys, the sandbox, the model, the clock and the event sink. */
export interface ProjectCore {
  layout: ProjectLayout;
  stable: AgentFS;
  store: AgentStore;
  signer: ReceiptSigner;
  clock: () => number;
  /** `pid:token` of this process, written into the agents it runs. */
  owner: string;
  defaultModel: string;
  sandbox(): Sandbox;
  modelClient(): ModelClient;
  emit(event: CairnEvent): void;
  /** The governance a new agent gets: the defaults, tightened by the project's manifest. */
  governanceFor(record: AgentRecord): GovernanceSource;
  /** Called after every change of an agent's record: keeps the state snapshot and previews current. */
  recordChanged(record: AgentRecord): void;
}
