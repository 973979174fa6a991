import type { Change } from './changes.js';
import type { EntryState } from './entry-state.js';
import { diffLines } from './line-diff.js';
import { isBinary, splitLines } from './text-content.js';

const CONTEXT_LINES = 3;

/** A unified diff of one change, git-style (`diff --git a/p b/p`); binary files are named, not dumped. Empty for directories. */
export function formatChangeDiff(change: Change): string {
  const { before, after, path } = change;
  if (before.kind === 'dir' || after.kind === 'dir') return '';
  const lines = [`diff --git ${quotePath('a/', path)} ${quotePath('b/', path)}`];
  const oldMode = modeText(before);
  const newMode = modeText(after);
  if (before.kind === 'absent') lines.push(`new file mode ${newMode}`);
  else if (after.kind === 'absent') lines.push(`deleted file mode ${oldMode}`);
  else if (oldMode !== newMode) lines.push(`old mode ${oldMode}`, `new mode ${newMode}`);
  const oldBytes = before.kind === 'absent' ? Buffer.alloc(0) : before.content;
  const newBytes = after.kind === 'absent' ? Buffer.alloc(0) : after.content;
  const oldName = before.kind === 'absent' ? '/dev/null' : quotePath('a/', path);
  const newName = after.kind === 'absent' ? '/dev/null' : quotePath('b/', path);
  const tab = path.includes(' ') ? '\t' : '';
  if (isBinary(oldBytes) || isBinary(newBytes)) {
    if (!oldBytes.equals(newBytes)) lines.push(`Binary files ${oldName} and ${newName} differ`);
    return lines.join('\n') + '\n';
  }
  if (oldBytes.equals(newBytes)) return lines.join('\n') + '\n';
  lines.push(`--- ${oldName}${before.kind === 'absent' ? '' : tab}`, `+++ ${newName}${after.kind === 'absent' ? '' : tab}`);
  formatHunks(splitLines(oldBytes.toString('utf8')), splitLines(newBytes.toString('utf8')), lines);
  return lines.join('\n') + '\n';
}

/**
 * Appends the hunks turning `a` into `b` to `out`, with `CONTEXT_LINES` of context; edits closer than twice
 * that share a hunk. A line without a terminator (a file's last) is followed by `\ No newline at end of file`.
 */
function formatHunks(a: readonly string[], b: readonly string[], out: string[]): void {
  const edits = diffLines(a, b);
  const push = (sign: string, line: string) => {
    if (line.endsWith('\n')) out.push(sign + line.slice(0, -1));
    else out.push(sign + line, '\\ No newline at end of file');
  };
  for (let first = 0; first < edits.length; ) {
    let last = first;
    while (last + 1 < edits.length && edits[last + 1]!.aStart - edits[last]!.aEnd <= 2 * CONTEXT_LINES) last++;
    const aFrom = Math.max(0, edits[first]!.aStart - CONTEXT_LINES);
    const bFrom = edits[first]!.bStart - (edits[first]!.aStart - aFrom);
    const aTo = Math.min(a.length, edits[last]!.aEnd + CONTEXT_LINES);
    const bTo = edits[last]!.bEnd + (aTo - edits[last]!.aEnd);
    out.push(`@@ -${range(aFrom + 1, aTo - aFrom)} +${range(bFrom + 1, bTo - bFrom)} @@`);
    let at = aFrom;
    for (let k = first; k <= last; k++) {
      const edit = edits[k]!;
      for (; at < edit.aStart; at++) push(' ', a[at]!);
      for (let i = edit.aStart; i < edit.aEnd; i++) push('-', a[i]!);
      for (let j = edit.bStart; j < edit.bEnd; j++) push('+', b[j]!);
      at = edit.aEnd;
    }
    for (; at < aTo; at++) push(' ', a[at]!);
    first = last + 1;
  }
}

/** The unified diff of a list of changes, in their order. */
export function formatUnifiedDiff(changes: readonly Change[]): string {
  return changes.map(formatChangeDiff).join('');
}

const ESCAPES: Record<number, string> = { 7: 'a', 8: 'b', 9: 't', 10: 'n', 11: 'v', 12: 'f', 13: 'r', 34: '"', 92: '\\' };

/**
 * A path in a diff header as git writes it with `core.quotePath` (the default): unchanged unless it holds a
 * double quote, a backslash, a control character or a byte outside ASCII; then C-quoted as a whole, prefix
 * included (`"a/tab\there"`, `"b/caf\303\251"`), which is what `git apply` and `patch` read back.
 */
export function quotePath(prefix: string, path: string): string {
  const bytes = Buffer.from(prefix + path, 'utf8');
  let out = '';
  let quote = false;
  for (const byte of bytes) {
    const named = ESCAPES[byte];
    if (named !== undefined) out += '\\' + named;
    else if (byte < 0x20 || byte >= 0x7f) out += '\\' + byte.toString(8).padStart(3, '0');
    else {
      out += String.fromCharCode(byte);
      continue;
    }
    quote = true;
  }
  return quote ? `"${out}"` : prefix + path;
}

function range(start: number, count: number): string {
  const first = count === 0 ? start - 1 : start;
  return count === 1 ? `${first}` : `${first},${count}`;
}

function modeText(state: EntryState): string {
  if (state.kind === 'absent' || state.kind === 'dir') return '000000';
  const type = state.kind === 'symlink' ? '120000' : (state.mode & 0o111) !== 0 ? '100755' : '100644';
  return type;
}
