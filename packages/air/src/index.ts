export { encodeCanonical, decodeCanonical, compareBytes } from './canonical-cbor.js';
export { scanCbor, MAX_CBOR_DEPTH } from './cbor-scan.js';
export { Dec128, Tagged, type CborValue } from './cbor-value.js';
export { encodeNode, decodeNode, hashNode, hashBytes, isHash, SELF_DESCRIBE_PREFIX, type Hash } from './node-hash.js';
export { AirError, isAirError, type AirErrorCode } from './errors.js';
