import type { CborValue, Journal, JournalEntry } from '@cairn/air';

/** The schemas of Cairn's own journal entries (AIR `DomainEventAppended`), each named once. */
export const SCHEMAS = {
  agentStarted: 'cairn/AgentStarted@1',
  revisionStarted: 'cairn/RevisionStarted@1',
  runStarted: 'cairn/RunStarted@1',
  runEnded: 'cairn/RunEnded@1',
  runRolledBack: 'cairn/RunRolledBack@1',
  programExtracted: 'cairn/ProgramExtracted@1',
  programRefused: 'cairn/ProgramRefused@1',
  toolCalled: 'cairn/ToolCalled@1',
  toolRefused: 'cairn/ToolRefused@1',
  pathResolved: 'cairn/PathResolved@1',
} as const;

/** One of Cairn's journal schemas. */
export type CairnSchema = (typeof SCHEMAS)[keyof typeof SCHEMAS];

/** The value of a Cairn entry, as read back: every field may be missing or of another type in a damaged journal. */
export type EntryValue = Readonly<Record<string, unknown>>;

/** Appends one of Cairn's entries (the agent's own, for tool calls; Cairn's, for everything else). */
export function appendCairnEntry(
  journal: Journal,
  schema: CairnSchema,
  value: Record<string, unknown>,
  origin: 'cairn' | 'agent' = 'cairn',
): void {
  journal.append('DomainEventAppended', { schema, value: value as CborValue, origin });
}

/** The value of `entry` when it is a Cairn entry of `schema`; undefined for any other entry. */
export function cairnEntry(entry: JournalEntry | undefined, schema: CairnSchema): EntryValue | undefined {
  if (entry?.kind !== 'DomainEventAppended') return undefined;
  const body = entry.body as { schema?: unknown; value?: unknown };
  if (body.schema !== schema || typeof body.value !== 'object' || body.value === null || Array.isArray(body.value)) return undefined;
  return body.value as EntryValue;
}

/** What started a run: its number, the blob of its program, its recorded clock. */
export interface RunStart {
  run: number;
  programRef: string;
  clockMs: number;
}

/** The start of a run, when `entry` records one. */
export function runStartOf(entry: JournalEntry | undefined): RunStart | undefined {
  const value = cairnEntry(entry, SCHEMAS.runStarted);
  if (value === undefined || typeof value.program_ref !== 'string') return undefined;
  return { run: Number(value.run ?? 0), programRef: value.program_ref, clockMs: Number(value.clock_ms ?? 0) };
}

/** The run starts of a journal, in order. */
export function runStartsOf(entries: Iterable<JournalEntry>): RunStart[] {
  const starts: RunStart[] = [];
  for (const entry of entries) {
    const start = runStartOf(entry);
    if (start !== undefined) starts.push(start);
  }
  return starts;
}

/** The blob of the governance an agent started under, from its first entry. */
export function governanceRefOf(first: JournalEntry | undefined): string | undefined {
  const value = cairnEntry(first, SCHEMAS.agentStarted);
  return typeof value?.governance_ref === 'string' ? value.governance_ref : undefined;
}

/** True when `entry` starts a stretch of an agent's life: its first, or a revision. */
export function startsStretch(entry: JournalEntry): boolean {
  return cairnEntry(entry, SCHEMAS.agentStarted) !== undefined || cairnEntry(entry, SCHEMAS.revisionStarted) !== undefined;
}
