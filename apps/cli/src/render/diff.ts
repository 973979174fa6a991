import { spawnSync } from 'node:child_process';
import type { Output, Paint } from '../output.js';
import { forTerminal } from './terminal-text.js';

/** A git-style diff coloured as git colours it. */
export function paintDiff(diff: string, paint: Paint): string {
  return diff
    .split('\n')
    .map((line) => {
      if (line.startsWith('diff --git') || line.startsWith('--- ') || line.startsWith('+++ ')) return paint.bold(line);
      if (line.startsWith('@@')) return paint.cyan(line);
      if (line.startsWith('+')) return paint.green(line);
      if (line.startsWith('-')) return paint.red(line);
      if (/^(new|deleted) file mode|^old mode|^new mode|^Binary files/.test(line)) return paint.bold(line);
      return line;
    })
    .join('\n');
}

/**
 * Prints long text the way git does: through a pager (`$CAIRN_PAGER`, `$PAGER`, else `less -FRX`) when stdout
 * is a terminal and the text is taller than it; straight to stdout otherwise, or with `--no-pager`.
 */
export function page(text: string, out: Output, usePager: boolean): void {
  const rows = process.stdout.rows ?? 24;
  const lines = text.split('\n').length;
  const pager = process.env.CAIRN_PAGER ?? process.env.PAGER ?? 'less -FRX';
  if (!usePager || !out.tty || out.json || lines < rows || pager === '' || pager === 'cat') {
    out.line(text.replace(/\n$/, ''));
    return;
  }
  const env = { ...process.env, LESS: process.env.LESS ?? 'FRX' };
  const result = spawnSync('sh', ['-c', pager], { input: forTerminal(text), stdio: ['pipe', 'inherit', 'inherit'], env });
  if (result.error !== undefined || (result.status !== 0 && result.status !== null)) out.line(text.replace(/\n$/, ''));
}
