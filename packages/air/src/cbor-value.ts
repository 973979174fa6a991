/** A 16-byte IEEE 754 decimal128, encoded as tag 2000 over its bytes. */
export class Dec128 {
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    if (!(bytes instanceof Uint8Array) || bytes.length !== 16) throw new TypeError('a dec128 is exactly 16 bytes');
    this.bytes = bytes;
  }
}

/** A tagged data item other than the ones Cairn maps to its own classes (dec128, bignums). */
export class Tagged {
  readonly tag: number | bigint;
  readonly value: CborValue;

  constructor(tag: number | bigint, value: CborValue) {
    this.tag = tag;
    this.value = value;
  }
}

/**
 * The data model of canonical CBOR in Cairn: integers are `number` when safe and `bigint` otherwise; maps
 * with only text keys are plain objects, other maps are `Map`s; byte strings are `Uint8Array`s.
 */
export type CborValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | Dec128
  | Tagged
  | readonly CborValue[]
  | ReadonlyMap<CborValue, CborValue>
  | { readonly [key: string]: CborValue };
