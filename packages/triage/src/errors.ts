/** Stable codes of `TriageError`. */
export type TriageErrorCode = 'TRIAGE_INVALID_VALUE' | 'TRIAGE_INVALID_THREAD' | 'TRIAGE_INVALID_LOG';

/** The one error class of `@cairn/triage`: thrown for values that cannot be formatted. Branch on `code`. */
export class TriageError extends Error {
  override readonly name = 'TriageError' as const;
  readonly code: TriageErrorCode;

  constructor(code: TriageErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is a TriageError (with the given code): by name and code, so it holds across copies of the package and processes. */
export function isTriageError(error: unknown, code?: TriageErrorCode): error is TriageError {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { name?: unknown; code?: unknown };
  return candidate.name === 'TriageError' && (code === undefined || candidate.code === code);
}
