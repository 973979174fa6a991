/** Stable codes of `CairnError`: what a surface branches on and prints. */
export type CairnErrorCode =
  | 'CAIRN_NOT_FOUND'
  | 'CAIRN_INVALID_STATE'
  | 'CAIRN_INVALID_ARGUMENT'
  | 'CAIRN_INVALID_PATH'
  | 'CAIRN_MANIFEST'
  | 'CAIRN_CONFIG'
  | 'CAIRN_PROJECT'
  | 'CAIRN_CORRUPT'
  | 'CAIRN_BUSY'
  | 'CAIRN_DAEMON'
  | 'CAIRN_CLOSED'
  | 'CAIRN_REMOTE'
  | 'CAIRN_INTERNAL';

/** The one error class of `@cairn/orchestrator`: misuse and failures, each with a stable `code` and an optional hint. */
export class CairnError extends Error {
  override readonly name = 'CairnError' as const;
  readonly code: CairnErrorCode;
  readonly hint: string | undefined;

  constructor(code: CairnErrorCode, message: string, options: { hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.hint = options.hint;
  }

  /** The error as it crosses a process: `{ code, message, hint? }`. */
  toJSON(): { code: CairnErrorCode; message: string; hint?: string } {
    return this.hint === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, hint: this.hint };
  }
}

/** True for a `CairnError` (by name and code, so it holds across copies of the package and processes). */
export function isCairnError(error: unknown, code?: CairnErrorCode): error is CairnError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; code?: unknown };
  return e.name === 'CairnError' && typeof e.code === 'string' && (code === undefined || e.code === code);
}
