import { existsSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { type CliProject, resultOf } from './run-cairn.js';

/** The project an agent CLI works on through `cairn mcp` in the CLI tests. */
export const AGENT_CLI_FILES = { 'src/a.js': 'export const word = "old";\n', '.env': 'SECRET=hunter2\n', 'README.md': '# demo\n' };

/**
 * What an agent CLI's environment must come to once it wrote `src/new.js`, renamed the word in `src/a.js` and ran
 * `echo hi > made.txt; cat .env; echo x > .git/evil` (whose answer is `ran`), then submitted: `.env` hidden from
 * the command and `.git` refused; the working tree untouched until accept; the agent reviewing as `mcp:…`; its
 * diff, log and replay right; and accept writing the changes.
 */
export async function expectAgentCliProposal(p: CliProject, id: string, ran: string): Promise<void> {
  expect(ran).toMatch(/\.env: No such file/);
  expect(ran).not.toContain('hunter2');
  expect(ran).toMatch(/^refused: .*\.git\/evil/m);
  expect(ran).toMatch(/made\.txt/);

  // the working tree is untouched until accept
  expect(readFileSync(`${p.root}/src/a.js`, 'utf8')).toBe(AGENT_CLI_FILES['src/a.js']);
  expect(existsSync(`${p.root}/src/new.js`)).toBe(false);
  expect(existsSync(`${p.root}/made.txt`)).toBe(false);
  expect(existsSync(`${p.root}/.git/evil`)).toBe(false);

  const listed = resultOf(await p.run(['ls', '--json'])) as { agents?: { id: string; kind: string; state: string }[] };
  const agent = listed.agents?.find((found) => found.id === id);
  expect(agent, JSON.stringify(listed)).toBeDefined();
  expect(agent!.kind).toMatch(/^mcp:./);
  expect(agent!.state).toBe('reviewing');
  const diff = await p.run(['diff', id, '--no-pager']);
  expect(diff.stdout).toContain('+export const added = 1;');
  expect(diff.stdout).toContain('+export const word = "new";');
  expect(diff.stdout).toContain('+hi');
  expect(diff.stdout).not.toContain('hunter2');
  const log = await p.run(['log', id, '--no-pager']);
  expect(log.stdout).toMatch(/\.git\/evil\s+denied/);
  const replay = await p.run(['replay', id]);
  expect(replay.code, replay.stdout + replay.stderr).toBe(0);
  expect(replay.stdout).toContain('reproduced');

  const accepted = await p.run(['accept', id]);
  expect(accepted.code, accepted.stdout + accepted.stderr).toBe(0);
  expect(readFileSync(`${p.root}/src/new.js`, 'utf8')).toBe('export const added = 1;\n');
  expect(readFileSync(`${p.root}/src/a.js`, 'utf8')).toBe('export const word = "new";\n');
  expect(readFileSync(`${p.root}/made.txt`, 'utf8')).toBe('hi\n');
  expect(existsSync(`${p.root}/.git/evil`)).toBe(false);
  expect(readFileSync(`${p.root}/.env`, 'utf8')).toBe(AGENT_CLI_FILES['.env']);
}
