import type { AuditEntry } from './audit-log.js';
import type { Actor, BranchName, Description } from './names.js';
import { checkProtocol, type ProtocolContext } from './protocol.js';
import type { Thread } from './thread.js';
import { timeOfDay } from './timestamp.js';
import { formatTriage } from './triage-text.js';

/** A step for the executor; only the orchestrator carries these out. */
export type InboxAction =
  | { type: 'merge'; thread: string; branch: BranchName }
  | { type: 'delete-branch'; thread: string; branch: BranchName }
  | { type: 'reply'; thread: string; to: Actor; branch: BranchName }
  | { type: 'notify'; thread: string; actor: Actor }
  | { type: 'custom'; thread: string; description: Description }
  | { type: 'move-to-done'; thread: string }
  | { type: 'log'; entry: AuditEntry };

/** A thread in the inbox, named by its file, with what the protocol needs to know about its branch. */
export interface InboxItem {
  name: string;
  thread: Thread;
  approvals?: readonly Actor[];
  baseUpToDate?: boolean;
  branchOwner?: Actor;
}

/**
 * Plans the processing of an inbox: for each triaged thread (in name order) the executor's steps, then
 * moving it to done, then its log entry. A decision the protocol denies is logged and the thread stays.
 * Deferred threads stay too. Untriaged threads are left alone.
 */
export function planInbox(items: readonly InboxItem[]): InboxAction[] {
  const actions: InboxAction[] = [];
  for (const item of [...items].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const { thread, name } = item;
    const record = thread.triage;
    if (record === undefined) continue;
    const context: ProtocolContext = {
      author: thread.from,
      reviewer: record.actor,
      branch: thread.branch,
      approvals: item.approvals ?? [],
      baseUpToDate: item.baseUpToDate ?? false,
      ...(item.branchOwner === undefined ? {} : { branchOwner: item.branchOwner }),
    };
    const log = (executed: string): InboxAction => ({
      type: 'log',
      entry: { time: timeOfDay(record.timestamp), source: thread.title, decision: formatTriage(record.decision), executed },
    });
    const verdict = checkProtocol(record.decision, context);
    if (!verdict.allowed) {
      actions.push(log(`✗ denied: ${verdict.rule}`));
      continue;
    }
    const decision = verdict.decision;
    const done: InboxAction = { type: 'move-to-done', thread: name };
    switch (decision.type) {
      case 'delete':
        actions.push({ type: 'delete-branch', thread: name, branch: thread.branch }, done, log('✓ deleted'));
        break;
      case 'defer':
        actions.push(log('— deferred'));
        break;
      case 'delegate':
        actions.push({ type: 'notify', thread: name, actor: decision.actor }, done, log(`✓ delegated to ${decision.actor}`));
        break;
      case 'do':
        switch (decision.action.type) {
          case 'merge':
            actions.push({ type: 'merge', thread: name, branch: thread.branch }, done, log('✓ merged'));
            break;
          case 'reply':
            actions.push(
              { type: 'reply', thread: name, to: thread.from, branch: decision.action.branch },
              done,
              log(`✓ replied on ${decision.action.branch}`),
            );
            break;
          case 'custom':
            actions.push({ type: 'custom', thread: name, description: decision.action.description }, done, log('✓ custom'));
            break;
        }
    }
  }
  return actions;
}
