/** A list with at least one item: what a failed outcome always names. */
export type NonEmpty<T> = [T, ...T[]];

/** An outcome that is `ok` exactly when nothing conflicted, typed so a caller can narrow on `ok`. */
export function conflictOutcome<C, R extends object>(
  conflicts: C[],
  rest: R,
): (R & { ok: true; conflicts: [] }) | (R & { ok: false; conflicts: NonEmpty<C> }) {
  const [first, ...others] = conflicts;
  return first === undefined ? { ...rest, ok: true, conflicts: [] } : { ...rest, ok: false, conflicts: [first, ...others] };
}
