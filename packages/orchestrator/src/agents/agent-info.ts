import type { AgentInfo } from '@cairn/api';
import type { AgentRecord } from './agent-store.js';

/** The public view of a record: what the CLI prints and the daemon sends. */
export function toAgentInfo(record: AgentRecord): AgentInfo {
  const info: AgentInfo = {
    id: record.id,
    task: record.task,
    state: record.state,
    createdAt: new Date(record.createdAt).toISOString(),
    updatedAt: new Date(record.updatedAt).toISOString(),
    origin: record.origin,
    kind: kindOf(record),
    lang: record.lang,
    runs: record.runs,
    spent: { ...record.spent },
  };
  if (record.model !== undefined) info.model = record.model;
  if (record.exec !== undefined) info.command = [...record.exec.command];
  if (record.summary !== undefined) info.summary = record.summary;
  if (record.changes !== undefined) info.changes = record.changes.map((c) => ({ ...c }));
  if (record.failure !== undefined) info.failure = { ...record.failure };
  if (record.role === 'reviewer') info.role = 'reviewer';
  if (record.reviews !== undefined) info.reviews = record.reviews;
  if (record.decision !== undefined) info.decision = { ...record.decision };
  if (record.worker !== undefined) info.worker = record.worker;
  const reason = record.reason ?? record.failure?.message;
  if (reason !== undefined) info.reason = reason;
  return info;
}

/** `model`, `code`, `exec:<program>` or `mcp:<client>`. */
function kindOf(record: AgentRecord): string {
  if (record.session !== undefined) return `mcp:${record.session.client}`;
  return record.exec === undefined ? record.origin : `exec:${programName(record.exec.command[0] ?? '')}`;
}

/** A program's name from its path (`/usr/local/bin/claude` → `claude`). */
export function programName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1) || program;
}
