import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { currentFolder, UsageError } from './context.js';

/** What `cairn accept` was told: the agents to accept in turn, and (with one agent) the paths to take. */
export interface AcceptArguments {
  ids: string[];
  paths: string[];
}

/**
 * Tells agents from paths in `cairn accept <id> [more…]`: the first word is an agent; each later one before `--`
 * that names an agent of the project is another agent, any other is a path; every word after `--` is a path.
 * Paths go with one agent only. A word that names an agent and a file or folder that exists is refused as
 * ambiguous, with the `--` that settles it.
 */
export function splitAcceptWords(words: readonly string[], afterDash: number, agents: ReadonlySet<string>, root: string): AcceptArguments {
  const tail = Math.min(afterDash, words.length - 1);
  const before = words.slice(0, words.length - tail);
  const ids = [before[0]!];
  const paths: string[] = [];
  for (const word of before.slice(1)) {
    if (!agents.has(word)) {
      paths.push(word);
      continue;
    }
    if (existsSync(resolve(currentFolder(), word)) || existsSync(join(root, word)))
      throw new UsageError(
        `"${word}" names both an agent of this project and a path`,
        `for the path, put it after --: \`cairn accept ${ids.join(' ')} -- ${word}\`; for the agent, run \`cairn accept ${word}\` on its own`,
      );
    ids.push(word);
  }
  paths.push(...words.slice(words.length - tail));
  if (ids.length > 1 && paths.length > 0)
    throw new UsageError(
      `paths go with one agent only, and ${paths.map((p) => `"${p}"`).join(', ')} ${paths.length === 1 ? 'names' : 'name'} no agent of this project`,
      '`cairn ls` lists the agents; to pick paths of several agents, accept them one at a time',
    );
  return { ids, paths };
}

/** How many words of the command line come after its first `--` (all of them operands). */
export function wordsAfterDash(argv: readonly string[]): number {
  const dash = argv.indexOf('--');
  return dash < 0 ? 0 : argv.length - dash - 1;
}
