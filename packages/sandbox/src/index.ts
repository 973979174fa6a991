export { type CheckResult, checkProgram, checkPythonProgram } from './check.js';
export { isSandboxError, SandboxError, type SandboxErrorCode } from './errors.js';
export { DEFAULT_LIMITS, type Limits, resolveLimits } from './limits.js';
export { type OneCall, runOneCall } from './one-call.js';
export type { Engine } from './protocol.js';
export type { CallRecord, CheckProblem, ProgramError, RunResult, RunStats, RunStatus } from './run-result.js';
export { createSandbox, type RunRequest, type Sandbox, type SandboxOptions } from './sandbox.js';
export type { ToolHandler } from './tool-call.js';
