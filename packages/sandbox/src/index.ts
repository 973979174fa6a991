export { createSandbox, type Sandbox, type SandboxOptions, type RunRequest } from './sandbox.js';
export { checkProgram, checkPythonProgram, type CheckResult } from './check.js';
export type { RunResult, RunStatus, RunStats, ProgramError, CallRecord, CheckProblem } from './run-result.js';
export type { ToolHandler } from './run-session.js';
export { DEFAULT_LIMITS, resolveLimits, type Limits } from './limits.js';
export type { Engine } from './protocol.js';
export { SandboxError, isSandboxError, type SandboxErrorCode } from './errors.js';
