export { encodeCanonical, decodeCanonical, compareBytes } from './canonical-cbor.js';
export { scanCbor, MAX_CBOR_DEPTH } from './cbor-scan.js';
export { Dec128, Tagged, type CborValue } from './cbor-value.js';
export { encodeNode, decodeNode, hashNode, hashBytes, isHash, SELF_DESCRIBE_PREFIX, type Hash } from './node-hash.js';
export { parseDec128, formatDec128, compareDec128 } from './dec128.js';
export { diagnostic, pointer, type AirDiagnostic, type AirResult } from './diagnostic.js';
export { parseName, parseRef, isName, type AirName, type AirRef, type NameParts } from './names.js';
export {
  parseType,
  typeToJson,
  expandType,
  schemaHash,
  PRIMITIVES,
  MAP_KEY_TYPES,
  type AirType,
  type PrimitiveName,
  type MapKeyName,
  type SchemaLookup,
} from './types.js';
export { encodeTypedValue, checkValue, hashTypedValue } from './values.js';
export { AirError, isAirError, type AirErrorCode } from './errors.js';
