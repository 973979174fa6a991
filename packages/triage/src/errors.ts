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
