import type { JournalView } from '@cairn/daemon/client';
import type { Paint } from '../output.js';

/**
 * `cairn log`: the journal as a table (time, effect, path, decision, bytes, tokens) with each row's detail (a model
 * call's window, prompt size, output tokens, time to first token), then whether its chain verifies. A detail is
 * never cut: where it does not fit beside its row on a terminal of `width` columns, it takes the line below.
 */
export function renderJournal(view: JournalView, paint: Paint, width: number | undefined = process.stdout.columns): string[] {
  const lines: string[] = [];
  if (view.interrupted !== undefined) {
    lines.push(paint.yellow('an earlier run, cut off when the process running it stopped (the agent then ran again from the start):'));
    lines.push(...renderRows(view.interrupted.rows, paint, width));
    lines.push(
      view.interrupted.verified
        ? paint.dim(`  ${view.interrupted.entries} entries, the hash chain is whole`)
        : paint.red(`  ${view.interrupted.entries} entries, the hash chain is BROKEN`),
    );
    lines.push('', paint.yellow('the run that counts:'));
  }
  lines.push(...renderRows(view.rows, paint, width));
  lines.push('');
  lines.push(
    view.verified
      ? paint.green(`journal verified: ${view.entries} entries, the hash chain is whole and reaches the recorded head`)
      : paint.red(`journal BROKEN at entry ${view.broken?.seq}: ${view.broken?.reason}`),
  );
  return lines;
}

function renderRows(journalRows: JournalView['rows'], paint: Paint, width: number | undefined): string[] {
  const header = ['TIME', 'SEQ', 'EFFECT', 'PATH', 'DECISION', 'BYTES', 'TOKENS'];
  const rows = journalRows.map((row) => [
    row.time.slice(11, 19),
    String(row.seq),
    row.effect ?? row.kind,
    row.path ?? '',
    row.decision ?? '',
    row.bytes === undefined ? '' : String(row.bytes),
    row.tokens === undefined ? '' : String(row.tokens),
    row.detail ?? '',
  ]);
  const widths = header.map((h, i) => Math.min(40, Math.max(h.length, ...rows.map((r) => r[i]!.length))));
  const fitCells = (cells: string[]) =>
    cells
      .slice(0, 7)
      .map((cell, i) => (cell.length > widths[i]! ? cell.slice(0, widths[i]! - 1) + '…' : cell.padEnd(widths[i]!)))
      .join('  ');
  const lines = [paint.dim(fitCells(header))];
  for (const row of rows) {
    const decision = row[4]!;
    const coloured = fitCells(row).replace(decision.padEnd(widths[4]!), (cell) =>
      /denied|refused|error|exceeded/.test(decision) ? paint.red(cell) : cell,
    );
    const detail = row[7]!;
    if (detail === '') lines.push(coloured);
    else if (width === undefined || fitCells(row).length + 2 + detail.length <= width) lines.push(`${coloured}  ${paint.dim(detail)}`);
    else lines.push(coloured, paint.dim(`${' '.repeat(10)}${detail}`));
  }
  return lines;
}
