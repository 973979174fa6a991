import { AirError } from './errors.js';
import { validUtf8Prefix } from './utf8.js';

/** How deep containers (arrays, maps, tags) may nest in a decoded item. */
export const MAX_CBOR_DEPTH = 128;

/**
 * Checks that `bytes` hold exactly one well-formed data item in Cairn's profile before any decoder sees
 * it: definite lengths only, no reserved or unassigned encodings, text in well-formed UTF-8, no undefined
 * or other simple values, no NaN or infinities, nesting at most `maxDepth`. Iterative, so no input can
 * exhaust the stack; every length is checked against the bytes that remain.
 */
export function scanCbor(bytes: Uint8Array, maxDepth = MAX_CBOR_DEPTH): void {
  const remaining: number[] = [1];
  let pos = 0;
  const fail = (
    code: 'AIR_CBOR_MALFORMED' | 'AIR_CBOR_UNSUPPORTED' | 'AIR_CBOR_INVALID_UTF8' | 'AIR_CBOR_TOO_DEEP',
    why: string,
    at = pos,
  ): never => {
    throw new AirError(code, `CBOR ${why} at byte ${at}`, { offset: at });
  };
  const need = (count: number) => {
    if (pos + count > bytes.length) fail('AIR_CBOR_MALFORMED', `item runs past the end of the input (${count} more bytes needed)`);
  };
  while (remaining.length > 0) {
    const top = remaining.length - 1;
    if (remaining[top] === 0) {
      remaining.pop();
      continue;
    }
    remaining[top]!--;
    const start = pos;
    need(1);
    const initial = bytes[pos++]!;
    const major = initial >> 5;
    const info = initial & 0x1f;
    let argument = 0;
    if (info < 24) argument = info;
    else if (info <= 27) {
      const size = 1 << (info - 24);
      need(size);
      if (major === 7 && info >= 25) {
        checkFloat(bytes, pos, size, start, fail);
        pos += size;
        continue;
      }
      argument = 0;
      for (let k = 0; k < size; k++) argument = argument * 256 + bytes[pos + k]!;
      pos += size;
    } else if (info === 31) {
      if (major === 7) fail('AIR_CBOR_MALFORMED', 'unexpected "break" code', start);
      if (major >= 2 && major <= 5) fail('AIR_CBOR_UNSUPPORTED', 'indefinite-length item (only definite lengths are canonical)', start);
      fail('AIR_CBOR_MALFORMED', `reserved additional information 31 for major type ${major}`, start);
    } else fail('AIR_CBOR_MALFORMED', `reserved additional information ${info}`, start);

    switch (major) {
      case 0:
      case 1:
        break;
      case 2:
      case 3: {
        if (argument > bytes.length - pos) fail('AIR_CBOR_MALFORMED', `string of ${argument} bytes runs past the end of the input`, start);
        if (major === 3) {
          const good = validUtf8Prefix(bytes, pos, pos + argument);
          if (good !== argument) fail('AIR_CBOR_INVALID_UTF8', 'text string is not well-formed UTF-8', pos + good);
        }
        pos += argument;
        break;
      }
      case 4:
      case 5:
      case 6: {
        if (remaining.length > maxDepth) fail('AIR_CBOR_TOO_DEEP', `nesting deeper than ${maxDepth} levels`, start);
        const items = major === 5 ? argument * 2 : major === 6 ? 1 : argument;
        if (major !== 6 && items > bytes.length - pos)
          fail('AIR_CBOR_MALFORMED', `container of ${argument} items runs past the end of the input`, start);
        if (items > 0) remaining.push(items);
        break;
      }
      case 7:
        if (info === 20 || info === 21 || info === 22) break;
        if (info === 23) fail('AIR_CBOR_UNSUPPORTED', '"undefined" (not in the data model)', start);
        if (info === 24 && argument < 32) fail('AIR_CBOR_MALFORMED', 'two-byte encoding of a simple value below 32', start);
        fail('AIR_CBOR_UNSUPPORTED', `simple value ${argument} (not in the data model)`, start);
    }
  }
  if (pos !== bytes.length) fail('AIR_CBOR_MALFORMED', `${bytes.length - pos} bytes after the end of the item`);
}

function checkFloat(
  bytes: Uint8Array,
  pos: number,
  size: number,
  start: number,
  fail: (code: 'AIR_CBOR_UNSUPPORTED', why: string, at: number) => never,
): void {
  let exponentAllOnes: boolean;
  if (size === 2) exponentAllOnes = (bytes[pos]! & 0x7c) === 0x7c;
  else if (size === 4) exponentAllOnes = (bytes[pos]! & 0x7f) === 0x7f && (bytes[pos + 1]! & 0x80) === 0x80;
  else exponentAllOnes = (bytes[pos]! & 0x7f) === 0x7f && (bytes[pos + 1]! & 0xf0) === 0xf0;
  if (exponentAllOnes) fail('AIR_CBOR_UNSUPPORTED', 'NaN or infinity (not in the data model)', start);
}
