import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAuditLog } from '@cairn/triage';
import { afterEach, beforeEach, expect } from 'vitest';
import type { Project } from '../project/project.js';
import { type OpenedTempProject, openTempProject, SAMPLE_FILES } from '../testing/temp-project.js';

/**
 * Opens the sample project afresh for each test of the file, as alice (the person threads and decisions name),
 * and hands it to `use`; it is disposed of after each test.
 */
export function eachProjectAsAlice(use: (opened: OpenedTempProject) => void): void {
  let temp: OpenedTempProject | undefined;
  beforeEach(async () => {
    process.env.CAIRN_USER = 'alice';
    temp = await openTempProject(SAMPLE_FILES);
    use(temp);
  });
  afterEach(async () => {
    await temp?.[Symbol.asyncDispose]();
    temp = undefined;
    delete process.env.CAIRN_USER;
  });
}

export const USE_CONST = `
const text = await read_file('src/greet.js');
await write_file('src/greet.js', text.replace('var text', 'const text'));
await submit_result('use const in greet', ['src/greet.js']);
`;

export const ADD_MUL = `
const text = await read_file('src/math.js');
await write_file('src/math.js', text + '\\nexport function mul(a, b) {\\n  return a * b;\\n}\\n');
await submit_result('add mul', ['src/math.js']);
`;

/** A reviewer that reads the proposal, tries to write (and is denied), then decides. */
export const reviewer = (decision: string, note = 'checked') => `
const proposal = await get_proposal();
log('reviewing ' + proposal.agent + ': ' + proposal.changes.map((c) => c.path).join(', '));
try {
  await write_file('src/greet.js', 'overwritten by a reviewer');
} catch (error) {
  log('denied as expected: ' + error.message);
}
await decide(${JSON.stringify(decision)}, ${JSON.stringify(note)});
`;

/** An agent that reaches reviewing with a program's change. */
export async function proposal(project: Project, code = USE_CONST, task = 'use const in greet'): Promise<string> {
  const agent = await project.spawn(task, { code });
  expect((await project.wait(agent.id)).state).toBe('reviewing');
  return agent.id;
}

/** The thread files in the inbox (or in done/). */
export function inboxFiles(project: Project, done = false): string[] {
  const dir = done ? project.layout.inboxDoneDir : project.layout.inboxDir;
  return existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.md')) : [];
}

/** The thread of an agent's proposal. */
export function threadOf(project: Project, id: string): string {
  const name = inboxFiles(project).find((n) => n.includes(`-${id}-`));
  if (name === undefined) throw new Error(`no thread for ${id}`);
  return name;
}

/** Ends a thread with a triage section, as a person editing the file would. */
export function decide(project: Project, name: string, decision: string, actor = 'alice', extra = ''): void {
  const path = join(project.layout.inboxDir, name);
  writeFileSync(
    path,
    `${readFileSync(path, 'utf8')}${extra}\n---\n\n## Triage\n\ndecision: ${decision}\nactor: ${actor}\ntimestamp: 2026-11-23T10:00Z\n`,
  );
}

/** Every entry of the audit log, read back. */
export function auditEntries(project: Project) {
  const dir = project.layout.auditDir;
  const files = existsSync(dir) ? readdirSync(dir) : [];
  return files.flatMap((file) => {
    const parsed = parseAuditLog(readFileSync(join(dir, file), 'utf8'));
    if (!parsed.ok) throw new Error(`the audit log does not read back: ${JSON.stringify(parsed.error)}`);
    return parsed.value.entries;
  });
}
