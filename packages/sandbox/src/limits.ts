import { SandboxError } from './errors.js';

/** Hard limits of one run. Sizes in bytes, times in milliseconds. */
export interface Limits {
  /** Wall-clock deadline for the whole run, host calls included (default 10 000). */
  wallMs: number;
  /** CPU time of the program itself (default 5 000). */
  cpuMs: number;
  /** Heap of the isolate in MiB (default 64; at least 8). */
  memoryMb: number;
  /** Tool-function calls (default 1 000). */
  calls: number;
  /** Bytes of logs plus the result (default 1 MiB). */
  outputBytes: number;
  /** Bytes of one call's arguments, or of one call's result (default 4 MiB). */
  messageBytes: number;
}

export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  wallMs: 10_000,
  cpuMs: 5_000,
  memoryMb: 64,
  calls: 1_000,
  outputBytes: 1 << 20,
  messageBytes: 4 << 20,
});

/** Fills in defaults and refuses what cannot be a limit. */
export function resolveLimits(given: Partial<Limits> | undefined): Limits {
  const limits = { ...DEFAULT_LIMITS, ...(given ?? {}) };
  for (const [key, value] of Object.entries(limits)) {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
      throw new SandboxError('SANDBOX_INVALID_LIMITS', `limit "${key}" must be a positive number, got ${String(value)}`);
    }
  }
  if (limits.memoryMb < 8) throw new SandboxError('SANDBOX_INVALID_LIMITS', 'limit "memoryMb" must be at least 8');
  return limits;
}
