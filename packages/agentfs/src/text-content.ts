const utf8 = new TextDecoder('utf-8', { fatal: true });

/** True when bytes should be shown as binary: a NUL in the first 8000 bytes, or not UTF-8. */
export function isBinary(content: Uint8Array): boolean {
  const head = content.subarray(0, 8000);
  if (head.includes(0)) return true;
  try {
    utf8.decode(content);
    return false;
  } catch {
    return true;
  }
}

/** Splits text into lines that keep their terminators, so joining them restores the text exactly. */
export function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}
