/**
 * Internals of @cairn/air for tools and tests (the spec writer, fuzzers): stable enough to use, not part of the
 * contract. A user of the package needs only the root entry.
 */
export { compareBytes } from './canonical-cbor.js';
export { scanCbor, MAX_CBOR_DEPTH } from './cbor-scan.js';
export { SELF_DESCRIBE_PREFIX, useNativeSha256 } from './node-hash.js';
export { diagnostic, pointer } from './diagnostic.js';
export { expandType, PRIMITIVES, MAP_KEY_TYPES } from './types.js';
export { checkStructure, KINDS } from './structure.js';
export { MAX_EXPR_DEPTH } from './expr.js';
export { OPERATORS } from './expr-operators.js';
export { isAssignable, describeType } from './expr-types.js';
export { CAP_TYPES } from './builtins.js';
export { commonSchema } from './json-schemas/common.js';
export { KIND_SCHEMAS } from './json-schemas/definitions.js';
export { entryHash } from './journal.js';
export { fsExclusionOf } from './fs-exclusions.js';
export { hostAllowed } from './grant-constraints.js';
export { SMALL_ORDER_ENCODINGS, canonicalY, isSmallOrderEncoding } from './ed25519-strict.js';
