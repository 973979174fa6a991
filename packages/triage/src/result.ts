/** A value or the reasons there is none; expected outcomes are returned, not thrown. */
export type Result<T, E> = { ok: true; value: T } | { ok: false; error: E };

/** A successful result. */
export function succeed<T>(value: T): { ok: true; value: T } {
  return { ok: true, value };
}

/** A failed result. */
export function fail<E>(error: E): { ok: false; error: E } {
  return { ok: false, error };
}
