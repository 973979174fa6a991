/** Text on one line: runs of whitespace (newlines included) become one space. */
export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}
