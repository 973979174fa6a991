import { isCairnError } from '@cairn/api';
import { removePreview, writePreview } from '@cairn/workspace';
import type { KnownOfAgent } from '../agents/agent-lifecycle.js';
import type { AgentRecord } from '../agents/agent-store.js';
import type { CheckService } from '../agents/check-service.js';
import type { AgentFiles, ProjectCore } from '../agents/project-core.js';
import { diffOf } from '../agents/proposal-reader.js';
import type { InboxService } from '../inbox/inbox-service.js';
import { AgentsSnapshot } from './agents-snapshot.js';

/** The files kept beside agent records, for tools that read files; `flush` writes what is still due. */
export interface RecordObservers {
  flush(): void;
  stop(): void;
}

/** How long `state/agents.json` may lag behind the records: one rewrite covers every move in that time. */
const SNAPSHOT_LAG_MS = 50;

/**
 * Keeps the files beside the records current as agents move: a reviewing agent's preview diff, inbox thread
 * and automatic checks (a revision makes its check results stale; a preview is removed once the agent moves
 * on), and `state/agents.json`, rewritten at most once per 50 ms however many agents move (it lists them all,
 * reading again only those that changed).
 * None of these is the truth (the databases are), so failing to write one never fails a move.
 */
export function observeRecords(
  core: Pick<ProjectCore, 'clock' | 'layout' | 'lifecycle' | 'stable' | 'store'>,
  inbox: InboxService,
  checks: CheckService,
): RecordObservers {
  let snapshotDue: NodeJS.Timeout | undefined;
  const snapshot = new AgentsSnapshot(core.store, core.layout.stateDir, core.layout.root);
  const flush = () => {
    if (snapshotDue === undefined) return;
    clearTimeout(snapshotDue);
    snapshotDue = undefined;
    try {
      snapshot.write(core.clock());
    } catch {
      // a convenience copy; the databases stay the truth
    }
  };
  const changed = (record: AgentRecord, known: KnownOfAgent) => {
    if (record.state === 'reviewing') {
      writeReviewFiles(core, inbox, record, known);
      checks.proposalReady(record);
    } else removePreview(core.layout.previewsDir, record.id);
    if (record.state === 'running') checks.proposalMoved(record.id);
    if (snapshotDue !== undefined) return;
    // a process that ends without closing its project has nothing left to wait for but this
    snapshotDue = setTimeout(flush, SNAPSHOT_LAG_MS).unref();
  };
  const stopObserving = core.lifecycle.observe(changed);
  const stop = () => {
    stopObserving();
    flush();
  };
  return { flush, stop };
}

function writeReviewFiles(core: AgentFiles, inbox: InboxService, record: AgentRecord, known: KnownOfAgent): void {
  try {
    const diff = known.diff ?? diffOf(core, record.id);
    writePreview(core.layout.previewsDir, record.id, diff);
    if (record.role !== 'reviewer') inbox.ensureThread(record, diff);
  } catch (error) {
    if (!isCairnError(error)) throw error;
  }
}
