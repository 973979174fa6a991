import type { SyncSummary } from '@cairn/daemon/client';
import type { Output } from '../output.js';

/** A path cut to fit a line. */
export function shortPath(path: string): string {
  return path.length <= 100 ? path : `${path.slice(0, 48)}…${path.slice(-48)}`;
}

/** One warning line for what an import left out, or nothing. */
export function noteSkipped(out: Output, summary: SyncSummary): void {
  const skipped = summary.skipped ?? [];
  if (skipped.length === 0) return;
  const first = skipped
    .slice(0, 3)
    .map((s) => `${shortPath(s.path)} (${s.reason})`)
    .join(', ');
  const more = skipped.length > 3 ? ` and ${skipped.length - 3} more` : '';
  out.note(
    `${out.paint.yellow('warning:')} skipped ${skipped.length} entr${skipped.length === 1 ? 'y' : 'ies'} agents will not see: ${first}${more}; list them with \`cairn status\``,
  );
}
