import type { Connection } from '../connect.js';
import type { Output } from '../output.js';

/** One warning line when the command shows the project without having brought Cairn's copy up to date, or nothing. */
export function noteUnsynced(out: Output, conn: Pick<Connection, 'unsynced'>): void {
  if (conn.unsynced === undefined) return;
  const hint = conn.unsynced.hint === undefined ? '' : `; ${conn.unsynced.hint}`;
  out.note(
    `${out.paint.yellow('warning:')} Cairn's copy is not up to date with your files, so what follows may not hold for them, check results included: ${conn.unsynced.message}${hint}`,
  );
}
