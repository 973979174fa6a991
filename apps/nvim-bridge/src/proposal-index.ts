import { type AgentInfo, type CairnApi, type FileProposal, proposalOnText } from '@cairn/orchestrator';

/** A reviewing agent that changes a path, as the editor labels it. */
export interface ProposalEntry {
  id: string;
  task: string;
  summary: string;
  /** How many files the whole proposal changes. */
  files: number;
  /** Its checks at a glance: `✓`, `✗ test`, `…` while they run, empty without checks. */
  checks: string;
}

/** One agent's proposal carried onto a buffer's text: the text accepting it would give, or why not. */
export interface BufferProposal extends ProposalEntry {
  ok: boolean;
  /** The buffer's text after the change (absent where the agent deletes the file or where `ok` is false). */
  text?: string;
  deletes?: boolean;
  reason?: 'conflict' | 'binary' | 'gone';
  message?: string;
}

/**
 * Which reviewing agents change which files, with each file's merge base and proposed text cached per agent
 * revision, so following a buffer's edits costs a merge and no round trip to the daemon.
 */
export class ProposalIndex {
  private byPath = new Map<string, ProposalEntry[]>();
  private revisions = new Map<string, string>();
  private readonly cache = new Map<string, Promise<FileProposal>>();

  constructor(private readonly api: () => CairnApi | undefined) {}

  /** Re-reads the reviewing agents; returns path → agents, newest proposal first. */
  async refresh(): Promise<Record<string, ProposalEntry[]>> {
    const api = this.api();
    const byPath = new Map<string, ProposalEntry[]>();
    const revisions = new Map<string, string>();
    if (api !== undefined) {
      const agents = (await api.agents({ state: 'reviewing' })).sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
      for (const agent of agents) {
        const changes = agent.changes ?? (await api.changes(agent.id));
        revisions.set(agent.id, revisionOf(agent));
        const entry: ProposalEntry = {
          id: agent.id,
          task: agent.task,
          summary: agent.summary ?? '',
          files: changes.length,
          checks: checksMark(agent),
        };
        for (const change of changes) {
          if (change.kind !== 'file') continue;
          const list = byPath.get(change.path) ?? [];
          list.push(entry);
          byPath.set(change.path, list);
        }
      }
    }
    for (const key of this.cache.keys()) {
      const [id] = key.split('\0');
      if (revisions.get(id!) !== key.split('\0')[1]) this.cache.delete(key);
    }
    this.byPath = byPath;
    this.revisions = revisions;
    return Object.fromEntries(byPath);
  }

  /** The agents proposing a change to `path`. */
  entries(path: string): ProposalEntry[] {
    return this.byPath.get(path) ?? [];
  }

  /** Every agent's proposal for `path`, carried onto `text`. */
  async onText(path: string, text: string): Promise<BufferProposal[]> {
    const api = this.api();
    if (api === undefined) return [];
    return Promise.all(
      this.entries(path).map(async (entry): Promise<BufferProposal> => {
        let proposal: FileProposal;
        try {
          proposal = await this.proposal(api, entry.id, path);
        } catch (error) {
          return { ...entry, ok: false, reason: 'gone', message: (error as Error).message };
        }
        const outcome = proposalOnText(proposal, text);
        if (!outcome.ok) return { ...entry, ok: false, reason: outcome.reason, message: outcome.message };
        return outcome.text === null ? { ...entry, ok: true, deletes: true } : { ...entry, ok: true, text: outcome.text };
      }),
    );
  }

  private proposal(api: CairnApi, id: string, path: string): Promise<FileProposal> {
    const key = `${id}\0${this.revisions.get(id) ?? ''}\0${path}`;
    let cached = this.cache.get(key);
    if (cached === undefined) {
      cached = api.proposal(id, path);
      cached.catch(() => this.cache.delete(key));
      this.cache.set(key, cached);
    }
    return cached;
  }
}

function revisionOf(agent: AgentInfo): string {
  return `${agent.runs}:${agent.updatedAt}`;
}

/** An agent's checks in one mark: ✗ and the failing names, … while any runs, ✓ when all passed. */
export function checksMark(agent: AgentInfo): string {
  const checks = agent.checks ?? [];
  if (checks.length === 0) return '';
  const failing = checks.filter((c) => c.status === 'failed' || c.status === 'timed-out' || c.status === 'error');
  if (failing.length > 0) return `✗ ${failing.map((c) => c.name).join(', ')}`;
  if (checks.some((c) => c.status === 'pending' || c.status === 'stale')) return '…';
  return '✓';
}
