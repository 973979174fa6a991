/** One row of an agent's journal, for people (`cairn log`). */
export interface JournalRow {
  seq: number;
  /** The run's clock at that entry (ISO 8601). */
  time: string;
  kind: string;
  /** The tool function or effect kind (`read_file`, `fs.write`, `llm.generate`). */
  effect?: string;
  path?: string;
  /** `allowed`, `denied`, `ok`, `error`, or the event's own word. */
  decision?: string;
  bytes?: number;
  tokens?: number;
  detail?: string;
}

/** An agent's journal as a table, with the outcome of verifying its chain. */
export interface JournalView {
  agentId: string;
  rows: JournalRow[];
  /** Journal entries read (rows show the ones a person needs). */
  entries: number;
  verified: boolean;
  /** Where the chain breaks, when it does. */
  broken?: { seq: number; reason: string };
  /** The run the agent's process did not live to finish, when a queue ran the agent again from the start. */
  interrupted?: { rows: JournalRow[]; entries: number; verified: boolean };
}
