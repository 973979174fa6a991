export { createAgentKernel } from './agent-kernel.js';
export { type CompiledGovernance, compileGovernance, compileGovernanceJson } from './compile.js';
export {
  CHECK_GRANT,
  defaultGovernance,
  FS_GRANT,
  LLM_GRANT,
  MAX_TOKENS_PER_CALL,
  PROTECTED_READ_PATTERNS,
  PROTECTED_WRITE_PATTERNS,
} from './default-manifest.js';
export { governanceFor, startingGovernance } from './project-governance.js';
export { loadProjectGovernance, type ManifestProblem, type ProjectGovernance } from './project-manifest.js';
export { ReceiptSigner } from './receipt-signer.js';
