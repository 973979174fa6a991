/**
 * Python's ways of ending a program early — `raise SystemExit(code)`, `sys.exit(code)`, `exit(code)`,
 * `quit(code)` — on Monty, which has no `sys.exit`, no `exit` or `quit`, and makes an exception from at most
 * one string. The program is rewritten (outside strings and comments, each name replaced by one exactly as
 * long, so lines and columns stay true): `SystemExit(` becomes a call of `_cairnexit(`, `sys.exit(` of
 * `_cairnsx(`. The host answers those calls, and `exit(`/`quit(` (names the program never defined), by raising
 * `SystemExit` at the call with the code as its message: an `except SystemExit` still catches it, and one
 * that ends the program ends it with that code, as in Python.
 */

/** The functions the host answers by raising `SystemExit`. */
export const EXIT_FUNCTIONS: ReadonlySet<string> = new Set(['_cairnexit', '_cairnsx', 'exit', 'quit']);

const IDENTIFIER = /[\p{L}\p{N}_]/u;
const STRING_PREFIX = /^(?:[rRbBuUfF]|[rR][bBfF]|[bBfF][rR])$/;

/** The program with `SystemExit(` and `sys.exit(` calls turned into calls the host answers; every offset kept. */
export function rewriteExits(code: string): string {
  let out = '';
  let i = 0;
  while (i < code.length) {
    const c = code[i]!;
    if (c === '#') {
      const end = code.indexOf('\n', i);
      const stop = end < 0 ? code.length : end;
      out += code.slice(i, stop);
      i = stop;
    } else if (c === '"' || c === "'") {
      const stop = endOfString(code, i);
      out += code.slice(i, stop);
      i = stop;
    } else if (IDENTIFIER.test(c) && !/[0-9]/.test(c)) {
      let stop = i + 1;
      while (stop < code.length && IDENTIFIER.test(code[stop]!)) stop++;
      const word = code.slice(i, stop);
      if (STRING_PREFIX.test(word) && (code[stop] === '"' || code[stop] === "'")) {
        const end = endOfString(code, stop);
        out += code.slice(i, end);
        i = end;
        continue;
      }
      const attribute = previousNonSpace(code, i) === '.';
      if (!attribute && word === 'SystemExit' && calledAt(code, stop)) out += '_cairnexit';
      else if (!attribute && word === 'sys' && code.startsWith('.exit', stop) && calledAt(code, stop + 5)) {
        out += '_cairnsx';
        stop += 5;
      } else out += word;
      i = stop;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The `SystemExit` message that carries the code a program exits with (the arguments of its exit call). */
export function exitMessage(args: readonly unknown[]): string {
  const code = args.length === 0 ? null : args.length === 1 ? args[0] : args;
  if (code === null || code === undefined) return '';
  if (typeof code === 'boolean') return code ? '1' : '0';
  if (typeof code === 'bigint' || (typeof code === 'number' && Number.isInteger(code))) return String(code);
  // a text that would read as a number or as no code is marked, so that it still ends the program with status 1
  if (typeof code === 'string') return /^-?\d+$/.test(code) || code === '' ? `\u0000${code}` : code;
  return JSON.stringify(code, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)) ?? String(code);
}

/**
 * The exit status a `SystemExit` that ended the program stands for, as Python gives it: no code or 0 is a
 * normal end; an integer is that status; anything else is status 1, with the text Python would print.
 */
export function exitStatusOf(message: string): { status: number; text?: string } {
  if (message === '') return { status: 0 };
  if (/^-?\d+$/.test(message)) return { status: Number(message) };
  return { status: 1, text: message.replace(/^\u0000/, '') };
}

function endOfString(code: string, start: number): number {
  const quote = code[start]!;
  const triple = code.startsWith(quote.repeat(3), start);
  const close = triple ? quote.repeat(3) : quote;
  let i = start + close.length;
  while (i < code.length) {
    const c = code[i]!;
    if (c === '\\') i += 2;
    else if (code.startsWith(close, i)) return i + close.length;
    else if (!triple && c === '\n') return i;
    else i++;
  }
  return code.length;
}

function previousNonSpace(code: string, index: number): string | undefined {
  for (let i = index - 1; i >= 0; i--) if (code[i] !== ' ' && code[i] !== '\t') return code[i];
  return undefined;
}

function calledAt(code: string, index: number): boolean {
  let i = index;
  while (code[i] === ' ' || code[i] === '\t') i++;
  return code[i] === '(';
}
