/** POSIX-like error codes raised by the store. */
export type AgentFSErrorCode =
  | 'ENOENT'
  | 'EEXIST'
  | 'ENOTDIR'
  | 'EISDIR'
  | 'ENOTEMPTY'
  | 'EINVAL'
  | 'ELOOP'
  | 'EPERM'
  | 'EBUSY'
  | 'EBADF'
  | 'ENOSPC'
  | 'ECORRUPT';

const DESCRIPTIONS: Record<AgentFSErrorCode, string> = {
  ENOENT: 'no such file or directory',
  EEXIST: 'file already exists',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  ENOTEMPTY: 'directory not empty',
  EINVAL: 'invalid argument',
  ELOOP: 'too many levels of symbolic links',
  EPERM: 'operation not permitted',
  EBUSY: 'resource busy',
  EBADF: 'the store is closed',
  ENOSPC: 'no space left on device',
  ECORRUPT: 'store is corrupt',
};

/** The one error class of `@cairn/agentfs`; branch on `code`, which survives process boundaries. */
export class AgentFSError extends Error {
  override readonly name = 'AgentFSError' as const;
  readonly code: AgentFSErrorCode;
  readonly syscall: string;
  readonly path: string | undefined;

  constructor(code: AgentFSErrorCode, syscall: string, path?: string, detail?: string, options?: { cause?: unknown }) {
    const where = path === undefined ? '' : ` '${path}'`;
    super(`${code}: ${detail ?? DESCRIPTIONS[code]}, ${syscall}${where}`, options);
    this.code = code;
    this.syscall = syscall;
    this.path = path;
  }
}

/** True when `error` is an AgentFSError with the given code (works across copies of the package). */
export function isAgentFSError(error: unknown, code?: AgentFSErrorCode): error is AgentFSError {
  if (typeof error !== 'object' || error === null) return false;
  const candidate = error as { name?: unknown; code?: unknown };
  return candidate.name === 'AgentFSError' && (code === undefined || candidate.code === code);
}

/** The error for any use of a store whose connection has been closed. */
export function closedStoreError(path: string, cause?: unknown): AgentFSError {
  return new AgentFSError('EBADF', 'access', path, 'the store is closed', cause === undefined ? undefined : { cause });
}
