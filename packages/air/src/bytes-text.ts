const BASE64_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Standard, padded base64 (what `bytes` values and `bytes_b64` constants are written in). */
export const BASE64_PATTERN = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes base64 that matches `BASE64_PATTERN`. */
export function bytesFromBase64(text: string): Uint8Array {
  const clean = text.replace(/=+$/, '');
  const out = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let count = 0;
  let index = 0;
  for (const char of clean) {
    bits = (bits << 6) | BASE64_ALPHABET.indexOf(char);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out[index++] = (bits >> count) & 0xff;
    }
  }
  return out;
}

/** Decodes an even-length hex string. */
export function bytesFromHex(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}
