/** Stable codes of `SandboxError`. */
export type SandboxErrorCode = 'SANDBOX_CLOSED' | 'SANDBOX_INVALID_LIMITS' | 'SANDBOX_INVALID_REQUEST' | 'SANDBOX_CHILD_FAILED';

/** The one error class of `@cairn/sandbox`, for misuse by the host; what programs do is reported in results. */
export class SandboxError extends Error {
  override readonly name = 'SandboxError' as const;
  readonly code: SandboxErrorCode;

  constructor(code: SandboxErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/** True when `error` is a SandboxError (with the given code): by name and code, so it holds across copies of the package and processes. */
export function isSandboxError(error: unknown, code?: SandboxErrorCode): error is SandboxError {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { name?: unknown; code?: unknown };
  return candidate.name === 'SandboxError' && (code === undefined || candidate.code === code);
}
