import type { JournalView } from '@cairn/orchestrator/client';
import type { Paint } from '../output.js';

/** `cairn log`: the journal as a table (time, effect, path, decision, bytes, tokens), then whether its chain verifies. */
export function renderJournal(view: JournalView, paint: Paint, width = process.stdout.columns ?? 120): string[] {
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

function renderRows(journalRows: JournalView['rows'], paint: Paint, width: number): string[] {
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
    const room = Math.max(20, width - fitCells(row).length - 2);
    const text = row[7]!.length > room ? row[7]!.slice(0, room - 1) + '…' : row[7]!;
    lines.push(text === '' ? coloured : `${coloured}  ${paint.dim(text)}`);
  }
  return lines;
}
