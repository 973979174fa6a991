import { readFileSync, statSync } from 'node:fs';
import { projectLayout } from '@cairn/daemon/client';
import { execOutputFile } from '@cairn/exec/paths';
import { connect } from '../connect.js';
import type { CommandContext } from '../context.js';
import { page } from '../render/diff.js';
import { renderJournal } from '../render/journal.js';

/** `cairn log <id>`: the agent's journal as a table; exit 1 when its chain does not verify. */
export async function logCommand(ctx: CommandContext, id: string, flags: { pager?: boolean }): Promise<number> {
  const conn = await connect(ctx.root);
  try {
    const view = await conn.api.journal(id);
    ctx.out.result(view.verified, { journal: view });
    if (!ctx.out.json) page([...renderJournal(view, ctx.out.paint), ...commandOutput(ctx, id)].join('\n'), ctx.out, flags.pager !== false);
    return view.verified ? 0 : 1;
  } finally {
    await conn.close();
  }
}

/** The lines of an agent CLI's output kept when it ran headless: the last `TAIL` bytes of what it printed. */
const TAIL = 64 * 1024;

function commandOutput(ctx: CommandContext, id: string): string[] {
  const file = execOutputFile(projectLayout(ctx.root).workspacesDir, id);
  let text: string;
  try {
    const size = statSync(file).size;
    const bytes = readFileSync(file);
    text = bytes.subarray(Math.max(0, size - TAIL)).toString('utf8');
    if (size > TAIL) text = `… (${size - TAIL} bytes before)\n${text.slice(text.indexOf('\n') + 1)}`;
  } catch {
    return [];
  }
  if (text.trim() === '') return ['', ctx.out.paint.dim('the command printed nothing')];
  return ['', ctx.out.paint.bold(`what the command printed (${file}):`), text.trimEnd()];
}
