/** Stable codes of `AirError`. */
export type AirErrorCode =
  | 'AIR_CBOR_MALFORMED'
  | 'AIR_CBOR_NOT_CANONICAL'
  | 'AIR_CBOR_TOO_DEEP'
  | 'AIR_CBOR_UNSUPPORTED'
  | 'AIR_CBOR_INVALID_UTF8'
  | 'AIR_CBOR_DUPLICATE_KEY'
  | 'AIR_VALUE_UNENCODABLE'
  | 'AIR_NODE_UNTAGGED'
  | 'AIR_STORE'
  | 'AIR_KEY_INVALID';

/** The one error class of `@cairn/air`. Branch on `code`, which survives process and isolate boundaries. */
export class AirError extends Error {
  override readonly name = 'AirError' as const;
  readonly code: AirErrorCode;
  /** Byte offset in the input where a decoding problem was found, when known. */
  readonly offset: number | undefined;

  constructor(code: AirErrorCode, message: string, options?: { cause?: unknown; offset?: number }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.offset = options?.offset;
  }
}

/** True when `error` is an AirError (with the given code), across copies of the package. */
export function isAirError(error: unknown, code?: AirErrorCode): error is AirError {
  if (typeof error !== 'object' || error === null) return false;
  const e = error as { name?: unknown; code?: unknown };
  return e.name === 'AirError' && (code === undefined || e.code === code);
}
