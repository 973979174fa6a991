import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { threadNameOf } from './thread-file.js';

let dir: string;
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("an agent's thread in a folder", () => {
  it('is the first thread file named for it: not a folder, a hidden file, or a thread whose task names it', () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-threads-'));
    mkdirSync(join(dir, '20261126-ab12-older.md'));
    for (const name of ['.20261126-ab12-hidden.md', '20261127-ab12-task.md', '20261127-ab123-other.md', '20261127-cd34-fix-ab12-too.md'])
      writeFileSync(join(dir, name), '# thread\n');
    expect(threadNameOf(dir, 'ab12')).toBe('20261127-ab12-task.md');
    expect(threadNameOf(dir, 'cd34')).toBe('20261127-cd34-fix-ab12-too.md');
    expect(threadNameOf(dir, 'ef56')).toBeUndefined();
    expect(threadNameOf(join(dir, 'missing'), 'ab12')).toBeUndefined();
  });
});
