/**
 * The public API of @cairn/air. Building blocks that only tools and tests need are in `@cairn/air/internal`;
 * the Node-only adapters and the OpenSSL verifier are in `@cairn/air/node`.
 */
export { encodeCanonical, decodeCanonical } from './canonical-cbor.js';
export { Dec128, Tagged, type CborValue } from './cbor-value.js';
export { encodeNode, decodeNode, hashNode, hashBytes, isHash, type Hash } from './node-hash.js';
export { parseDec128, formatDec128, compareDec128 } from './dec128.js';
export type { AirDiagnostic, AirResult } from './diagnostic.js';
export { parseName, parseRef, isName, type AirName, type AirRef, type NameParts } from './names.js';
export {
  parseType,
  typeToJson,
  schemaHash,
  type AirType,
  type PrimitiveName,
  type MapKeyName,
  type SchemaLookup,
} from './types.js';
export { encodeTypedValue, checkValue, hashTypedValue, zeroValue } from './values.js';
export { AirError, isAirError, type AirErrorCode } from './errors.js';
export {
  parseNode,
  type AirNode,
  type AirDefinition,
  type DefSchemaNode,
  type DefModuleNode,
  type DefPlanNode,
  type DefCapNode,
  type DefPolicyNode,
  type ManifestNode,
  type PlanStep,
  type PolicyRule,
  type CapGrantJson,
} from './nodes.js';
export type { AirKind } from './structure.js';
export { evaluateExpr, type ExprEnv } from './expr.js';
export type { Operator } from './expr-operators.js';
export { inferExprType, type InferredType, type TypeScope } from './expr-types.js';
export { validateManifest, type ValidatedManifest } from './validate.js';
export { World, createWorld, type Entry, type ResolvedSchema } from './world.js';
export { BUILTIN_SCHEMAS, BUILTIN_CAPS, EFFECT_CATALOG, type EffectSpec, type AirDefinitionJson } from './builtins.js';
export { loadManifestDir, writeManifestStore, MANIFEST_FILE, type AirFiles, type FileDiagnostic } from './manifest-store.js';
export { verifyEd25519, signEd25519, ed25519PublicKey, hmacSha256, equalBytes, type SignatureScheme } from './signing.js';
export { ed25519KeyProblem } from './ed25519-strict.js';
export {
  Journal,
  MemoryJournalStore,
  verifyChain,
  type JournalEntry,
  type JournalKind,
  type JournalStore,
  type ChainBreak,
  type JournalHead,
} from './journal.js';
export { fsPathExcluded } from './fs-exclusions.js';
export { checkGrantConstraints, parseHttpUrl, type ParsedHttpUrl } from './grant-constraints.js';
export { normalProjectPath } from './project-path.js';
export { decidePolicy, type EffectOrigin, type PolicyDecision, type PolicySubject } from './policy.js';
export {
  EffectKernel,
  intentHash,
  receiptSigningBytes,
  receiptRecord,
  receiptFromRecord,
  verifyReceiptSignature,
  adapterKeyProblem,
  type SignatureVerifier,
  type EffectRequest,
  type EffectIntent,
  type Denial,
  type Receipt,
  type AdapterKey,
  type KernelOptions,
} from './kernel.js';
export { PlanRunner, type PlanInstance, type InstanceStatus, type PlanRunnerOptions } from './plan-runner.js';
export { AirRuntime, replayJournal, shadowRun, type RuntimeConfig, type ReplayOutcome, type ShadowReport } from './air-runtime.js';
export { BlobAdapter, TimerAdapter, signReceipt, type EffectAdapter } from './adapters.js';
export { loadReducer, type Reducer, type ReducerOutput, type DomainEvent } from './reducer.js';
export { applyPatch, diffPlanes, Governance, type PatchOp, type PatchDocument, type ControlPlane, type DefinitionDiff } from './patches.js';
