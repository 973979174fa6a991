/**
 * Text shown on a terminal comes partly from agents: file contents in diffs, a check's output, a program's log
 * lines and summary, paths. Control characters in it could rewrite what the terminal shows — a carriage return
 * or a cursor move that hides a line of a diff, an escape that conceals text, sets the clipboard or the title —
 * and bidirectional overrides can show code in another order than it runs. So on a terminal every control
 * character is shown as what it is (`^[`, `^M`, `<U+202E>`), as `less` and `cat -v` show them; only the colour
 * sequences Cairn itself paints (bold, dim, red, green, yellow, magenta, cyan and their resets) pass. Output that
 * is not a terminal (a pipe, a file, `--json`) is left byte for byte as it is.
 */
export function forTerminal(text: string): string {
  return text.replace(CONTROL, (found) => (PAINTED.test(found) ? found : visible(found)));
}

/** A colour sequence (SGR) or one control character: C0 but tab and newline, DEL, C1, and the bidi controls. */
const CONTROL = /\x1b\[[0-9;]*m|[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/** The sequences picocolors writes for the colours `Paint` offers. */
const PAINTED = /^\x1b\[(?:0|1|2|22|3[1-6]|39)m$/;

function visible(found: string): string {
  if (found.length > 1) return `^[${found.slice(1)}`;
  const code = found.charCodeAt(0);
  if (code < 0x20) return `^${String.fromCharCode(code + 0x40)}`;
  if (code === 0x7f) return '^?';
  return `<U+${code.toString(16).toUpperCase().padStart(4, '0')}>`;
}
