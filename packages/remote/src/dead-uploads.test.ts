import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dropDeadUploads } from './dead-uploads.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the uploads of agents that no longer run', () => {
  it('are removed, and nothing of a running agent, nothing still arriving, nothing else', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-uploads-'));
    dirs.push(dir);
    const names = [
      'ab12-1.1.db',
      'ab12-1.1.json',
      'ab12-2.1.db',
      'ab12cd-1.1.db',
      'ab12cd-1.1.json',
      'ab12cd-1.2.db.4f5e6a7b8c9d.part',
      'notes.txt',
    ];
    for (const name of names) writeFileSync(join(dir, name), name);
    expect(dropDeadUploads(dir, (agent) => agent === 'ab12cd')).toBe(3);
    expect(readdirSync(dir).sort()).toEqual(['ab12cd-1.1.db', 'ab12cd-1.1.json', 'ab12cd-1.2.db.4f5e6a7b8c9d.part', 'notes.txt']);
    expect(dropDeadUploads(dir, () => false)).toBe(2);
    expect(existsSync(join(dir, 'ab12cd-1.2.db.4f5e6a7b8c9d.part'))).toBe(true);
    expect(dropDeadUploads(join(dir, 'missing'), () => false)).toBe(0);
  });
});
