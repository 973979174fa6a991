/**
 * Internals of @cairn/air for tools and tests (the spec writer, fuzzers): stable enough to use, not part of the
 * contract. A user of the package needs only the root entry.
 */

export { CAP_TYPES } from './builtins.js';
export { compareBytes } from './canonical-cbor.js';
export { MAX_CBOR_DEPTH, scanCbor } from './cbor-scan.js';
export { diagnostic, pointer } from './diagnostic.js';
export { canonicalY, isSmallOrderEncoding, SMALL_ORDER_ENCODINGS } from './ed25519-strict.js';
export { MAX_EXPR_DEPTH } from './expr.js';
export { OPERATORS } from './expr-operators.js';
export { describeType, isAssignable } from './expr-types.js';
export { fsExclusionOf } from './fs-exclusions.js';
export { hostAllowed } from './grant-constraints.js';
export { entryHash } from './journal.js';
export { commonSchema } from './json-schemas/common.js';
export { KIND_SCHEMAS } from './json-schemas/definitions.js';
export { SELF_DESCRIBE_PREFIX, useNativeSha256 } from './node-hash.js';
export { checkStructure, KINDS } from './structure.js';
export { expandType, MAP_KEY_TYPES, PRIMITIVES } from './types.js';
