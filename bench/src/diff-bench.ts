import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Change, formatChangeDiff, mergeText } from '@cairn/agentfs';
import { medianOf, scaled } from './measure.js';
import type { BenchRow } from './storage-bench.js';

/** `count` lines of a source-like file; `variant` renames every identifier, so two variants differ on every line but the blank ones. */
function sourceLines(count: number, variant: string): string[] {
  const lines: string[] = [];
  for (let i = 0; lines.length < count; i++) {
    lines.push(
      `export function ${variant}compute${i}(a, b) {\n`,
      `  const total${i} = a * ${i} + b;\n`,
      `  if (total${i} > ${i % 97}) return ${variant}helper(total${i}, '${variant}${i}');\n`,
      `  return total${i};\n`,
      '}\n',
      '\n',
    );
  }
  return lines.slice(0, count);
}

function fileChange(before: string, after: string): Change {
  const state = (text: string) => ({ kind: 'file' as const, mode: 0o100644, hash: '', content: Buffer.from(text) });
  return { path: 'src/big.js', status: 'modified', kind: 'file', before: state(before), after: state(after) };
}

/** Milliseconds of one run of git (the process's start included: what a user of git waits for). */
function timeGit(args: readonly string[], cwd: string): number {
  return medianOf(scaled(5), () => {
    try {
      execFileSync('git', args, { cwd, stdio: 'ignore' });
    } catch (error) {
      // `git diff --no-index` exits 1 when the files differ, `git merge-file` with the number of conflicts
      if (typeof (error as { status?: unknown }).status !== 'number') throw error;
    }
  });
}

/**
 * The line diff and the three-way merge on large files, beside git on the same files: a 20,000-line rewrite
 * (every line but the blank ones changed), and a 200,000-line file both sides edited, far apart.
 */
export function benchDiff(work: string): BenchRow[] {
  const rows: BenchRow[] = [];
  const old20k = sourceLines(20_000, '').join('');
  const new20k = sourceLines(20_000, 'renamed_').join('');
  writeFileSync(join(work, 'old.js'), old20k);
  writeFileSync(join(work, 'new.js'), new20k);
  const diffMs = medianOf(scaled(5), () => formatChangeDiff(fileChange(old20k, new20k)));
  rows.push({
    tree: 'generated file',
    measure: 'unified diff of a 20,000-line rewrite',
    unit: 'ms',
    cairn: diffMs,
    others: { 'git diff --no-index': timeGit(['diff', '--no-index', '--no-color', 'old.js', 'new.js'], work) },
    goal: 'well under a second',
  });

  // the agent rewrote the first half, the human edited a line near the end
  const half = sourceLines(20_000, '');
  const agent20k = [...sourceLines(10_000, 'renamed_'), ...half.slice(10_000)].join('');
  const human20k = old20k.replace('return total19500;', 'return total19500 + 1;');
  writeFileSync(join(work, 'agent.js'), agent20k);
  writeFileSync(join(work, 'human.js'), human20k);
  const merge20k = medianOf(scaled(5), () => {
    if (!mergeText(old20k, human20k, agent20k).clean) throw new Error('bench merge of the 20k-line file conflicted');
  });
  rows.push({
    tree: 'generated file',
    measure: 'three-way merge, 20,000 lines, half rewritten against a one-line edit',
    unit: 'ms',
    cairn: merge20k,
    others: { 'git merge-file -p': timeGit(['merge-file', '-p', 'human.js', 'old.js', 'agent.js'], work) },
    goal: 'well under a second',
  });

  const base200k = sourceLines(200_000, '').join('');
  const human200k = base200k.replace('return total10;', 'return total10 + 1;');
  const agent200k = base200k.replace('return total33000;', 'return total33000 - 1;');
  writeFileSync(join(work, 'base200k.js'), base200k);
  writeFileSync(join(work, 'human200k.js'), human200k);
  writeFileSync(join(work, 'agent200k.js'), agent200k);
  const merge200k = medianOf(scaled(5), () => {
    if (!mergeText(base200k, human200k, agent200k).clean) throw new Error('bench merge of the 200k-line file conflicted');
  });
  rows.push({
    tree: 'generated file',
    measure: 'three-way merge, 200,000 lines edited at both ends',
    unit: 'ms',
    cairn: merge200k,
    others: { 'git merge-file -p': timeGit(['merge-file', '-p', 'human200k.js', 'base200k.js', 'agent200k.js'], work) },
    goal: 'well under a second',
  });
  return rows;
}
