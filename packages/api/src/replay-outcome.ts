/** Where a replay first differed from the recorded run. */
export interface ReplayDivergence {
  seq: number;
  reason: string;
  expected?: unknown;
  actual?: unknown;
}

/** What every replay reports: journal entries compared, runs replayed, and the changes' hashes. */
interface ReplayCounts {
  entries: number;
  runs: number;
  /** Content hash of the changes the replay produced, and of those recorded. */
  changesHash: string;
  recordedChangesHash: string;
}

/** The outcome of a replay: the recorded run reproduced, or the first difference. */
export type ReplayOutcome = (ReplayCounts & { ok: true }) | (ReplayCounts & { ok: false; divergence: ReplayDivergence });
