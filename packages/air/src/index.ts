/**
 * The public API of @cairn/air. Building blocks that only tools and tests need are in `@cairn/air/internal`;
 * the Node-only adapters and the OpenSSL verifier are in `@cairn/air/node`.
 */

export { BlobAdapter, type EffectAdapter, signReceipt, TimerAdapter } from './adapters.js';
export { AirRuntime, type ReplayOutcome, type RuntimeConfig, replayJournal, type ShadowReport, shadowRun } from './air-runtime.js';
export { type AirDefinitionJson, BUILTIN_CAPS, BUILTIN_SCHEMAS, EFFECT_CATALOG, type EffectSpec } from './builtins.js';
export { decodeCanonical, encodeCanonical } from './canonical-cbor.js';
export { type CborValue, Dec128, Tagged } from './cbor-value.js';
export { compareDec128, formatDec128, parseDec128 } from './dec128.js';
export type { AirDiagnostic, AirResult } from './diagnostic.js';
export { ed25519KeyProblem } from './ed25519-strict.js';
export { AirError, type AirErrorCode, isAirError } from './errors.js';
export { type ExprEnv, evaluateExpr } from './expr.js';
export type { Operator } from './expr-operators.js';
export { type InferredType, inferExprType, type TypeScope } from './expr-types.js';
export { fsPathExcluded } from './fs-exclusions.js';
export { checkGrantConstraints, type ParsedHttpUrl, parseHttpUrl } from './grant-constraints.js';
export {
  type ChainBreak,
  Journal,
  type JournalEntry,
  type JournalHead,
  type JournalKind,
  type JournalStore,
  MemoryJournalStore,
  verifyChain,
} from './journal.js';
export {
  type AdapterKey,
  adapterKeyProblem,
  type Denial,
  type EffectIntent,
  EffectKernel,
  type EffectRequest,
  intentHash,
  type KernelOptions,
  type Receipt,
  receiptFromRecord,
  receiptRecord,
  receiptSigningBytes,
  type SignatureVerifier,
  verifyReceiptSignature,
} from './kernel.js';
export { type AirFiles, type FileDiagnostic, loadManifestDir, MANIFEST_FILE, writeManifestStore } from './manifest-store.js';
export { type AirName, type AirRef, isName, type NameParts, parseName, parseRef } from './names.js';
export { decodeNode, encodeNode, type Hash, hashBytes, hashNode, isHash } from './node-hash.js';
export {
  type AirDefinition,
  type AirNode,
  type CapGrantJson,
  type DefCapNode,
  type DefModuleNode,
  type DefPlanNode,
  type DefPolicyNode,
  type DefSchemaNode,
  type ManifestNode,
  type PlanStep,
  type PolicyRule,
  parseNode,
} from './nodes.js';
export { applyPatch, type ControlPlane, type DefinitionDiff, diffPlanes, Governance, type PatchDocument, type PatchOp } from './patches.js';
export { type InstanceStatus, type PlanInstance, PlanRunner, type PlanRunnerOptions } from './plan-runner.js';
export { decidePolicy, type EffectOrigin, type PolicyDecision, type PolicySubject } from './policy.js';
export { normalProjectPath } from './project-path.js';
export { type DomainEvent, loadReducer, type Reducer, type ReducerOutput } from './reducer.js';
export { ed25519PublicKey, equalBytes, hmacSha256, type SignatureScheme, signEd25519, verifyEd25519 } from './signing.js';
export type { AirKind } from './structure.js';
export {
  type AirType,
  type MapKeyName,
  type PrimitiveName,
  parseType,
  type SchemaLookup,
  schemaHash,
  typeToJson,
} from './types.js';
export { type ValidatedManifest, validateManifest } from './validate.js';
export { checkValue, encodeTypedValue, hashTypedValue, zeroValue } from './values.js';
export { createWorld, type Entry, type ResolvedSchema, World } from './world.js';
