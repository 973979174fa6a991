import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importPath } from './import-paths.js';
import { type ImportProgress, importTree } from './import-tree.js';
import { materialize } from './materialize.js';
import { openTempOverlay, openTempStore } from './test-support/stores.js';
import { makeTempDir } from './test-support/temp-dir.js';
import { writeBack } from './write-back.js';

function write(root: string, rel: string, content: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), content);
}

describe('project mirror', () => {
  it('imports a tree, honouring nested .gitignore files and skipping .git and .agentfs', () => {
    const root = makeTempDir();
    write(root, '.gitignore', 'node_modules/\n*.log\n!keep.log\n');
    write(root, 'src/index.ts', 'export {};\n');
    write(root, 'src/debug.log', 'noise');
    write(root, 'src/keep.log', 'kept');
    write(root, 'node_modules/x/index.js', 'x');
    write(root, '.git/HEAD', 'ref: refs/heads/main');
    write(root, '.agentfs/stable.db', 'db');
    write(root, 'pkg/.gitignore', 'generated/\n/local.txt\n');
    write(root, 'pkg/generated/out.js', 'gen');
    write(root, 'pkg/local.txt', 'local');
    write(root, 'pkg/sub/local.txt', 'not anchored here');
    const store = openTempStore('stable.db', makeTempDir());
    const summary = importTree(store, root);
    expect(store.fs.readdir('/')).toEqual(['.gitignore', 'pkg', 'src']);
    expect(store.fs.readdir('/src')).toEqual(['index.ts', 'keep.log']);
    expect(store.fs.readdir('/pkg')).toEqual(['.gitignore', 'sub']);
    expect(store.fs.readFile('/pkg/sub/local.txt', 'utf8')).toBe('not anchored here');
    expect(summary).toMatchObject({ added: 8, updated: 0, removed: 0, unchanged: 0, files: 5, dirs: 3 });
  });

  it('keeps modes, mtimes and symlinks, and reports progress', () => {
    const root = makeTempDir();
    write(root, 'bin/run.sh', '#!/bin/sh\n');
    chmodSync(join(root, 'bin/run.sh'), 0o755);
    utimesSync(join(root, 'bin/run.sh'), 1_600_000_000, 1_600_000_000.5);
    symlinkSync('bin/run.sh', join(root, 'run'));
    const store = openTempStore('stable.db', makeTempDir());
    const progress: ImportProgress[] = [];
    importTree(store, root, { onProgress: (p) => progress.push(p) });
    expect(store.fs.stat('/bin/run.sh').mode).toBe(0o100755);
    expect(store.fs.stat('/bin/run.sh').mtime).toBe(1_600_000_000);
    expect(store.fs.readlink('/run')).toBe('bin/run.sh');
    expect(progress.map((p) => p.phase)).toContain('import');
    expect(progress.at(-1)?.phase).toBe('prune');
    const last = progress.filter((p) => p.phase === 'import').at(-1)!;
    expect(last.done).toBe(last.total);
    expect(last.bytes).toBe(10);
  });

  it('re-imports incrementally: unchanged by size and mtime, touched-but-equal by content, edits and deletions applied', () => {
    const root = makeTempDir();
    write(root, 'a.txt', 'a');
    write(root, 'b.txt', 'b');
    write(root, 'c.txt', 'c');
    write(root, 'd/e.txt', 'e');
    const store = openTempStore('stable.db', makeTempDir());
    importTree(store, root);
    const inoA = store.fs.stat('/a.txt').ino;
    utimesSync(join(root, 'b.txt'), new Date(), new Date(Date.now() + 5000));
    write(root, 'c.txt', 'C changed');
    rmSync(join(root, 'd'), { recursive: true });
    write(root, 'f.txt', 'new');
    const summary = importTree(store, root);
    expect(summary).toMatchObject({
      added: 1,
      updated: 1,
      removed: 1,
      unchanged: 2,
      bytes: 'b'.length + 'C changed'.length + 'new'.length,
    });
    expect(store.fs.stat('/a.txt').ino).toBe(inoA);
    expect(store.fs.readFile('/c.txt', 'utf8')).toBe('C changed');
    expect(store.fs.readdir('/')).toEqual(['a.txt', 'b.txt', 'c.txt', 'f.txt']);
    expect(importTree(store, root)).toMatchObject({ added: 0, updated: 0, removed: 0, unchanged: 4, bytes: 0 });
  });

  it('importPath applies one watcher event: add, change, delete, and a file that became a directory', () => {
    const root = makeTempDir();
    const store = openTempStore('stable.db', makeTempDir());
    write(root, 'x.txt', '1');
    expect(importPath(store, root, 'x.txt')).toBe('added');
    write(root, 'x.txt', '22');
    expect(importPath(store, root, 'x.txt')).toBe('updated');
    expect(importPath(store, root, 'x.txt')).toBe('unchanged');
    rmSync(join(root, 'x.txt'));
    expect(importPath(store, root, 'x.txt')).toBe('removed');
    write(root, 'x.txt/inner.txt', 'i');
    importPath(store, root, 'x.txt');
    expect(store.fs.stat('/x.txt').isDirectory()).toBe(true);
  });

  it('writes accepted changes back to the working tree atomically, keeping modes', () => {
    const root = makeTempDir();
    write(root, 'keep.txt', 'keep');
    write(root, 'edit.txt', 'old');
    write(root, 'gone/only.txt', 'bye');
    const { base, overlay } = openTempOverlay();
    importTree(base, root);
    overlay.fs.writeFile('/edit.txt', 'new');
    overlay.fs.writeFile('/tool.sh', 'echo', { mode: 0o750 });
    overlay.fs.rm('/gone', { recursive: true });
    overlay.fs.symlink('edit.txt', '/alias');
    const result = overlay.accept();
    writeBack(
      base.fs,
      root,
      result.applied.map((a) => a.path),
    );
    expect(readFileSync(join(root, 'edit.txt'), 'utf8')).toBe('new');
    expect(lstatSync(join(root, 'tool.sh')).mode & 0o777).toBe(0o750);
    expect(readlinkSync(join(root, 'alias'))).toBe('edit.txt');
    expect(() => lstatSync(join(root, 'gone'))).toThrow();
    expect(importTree(base, root)).toMatchObject({ added: 0, removed: 0 });
  });

  it('never writes through a symbolic link on disk: fails a path below one, replaces one the store says is a directory', () => {
    const root = makeTempDir();
    const outside = makeTempDir();
    write(root, 'a.txt', 'a');
    const { base, overlay } = openTempOverlay();
    importTree(base, root);
    symlinkSync(outside, join(root, 'linked'));
    overlay.fs.writeFile('/a.txt', 'changed');
    overlay.fs.writeFile('/linked/planted.txt', 'x');
    const result = overlay.accept();
    const refused = writeBack(base.fs, root, ['/a.txt', '/linked/planted.txt']);
    expect(refused.failed).toEqual([
      {
        path: 'linked/planted.txt',
        error: expect.objectContaining({ code: 'EPERM', message: expect.stringContaining("'linked' is a symbolic link on disk") }),
      },
    ]);
    expect(refused.written).toEqual(['a.txt']);
    expect(readdirSync(outside)).toEqual([]);
    writeBack(
      base.fs,
      root,
      result.applied.map((a) => a.path),
    );
    expect(lstatSync(join(root, 'linked')).isDirectory()).toBe(true);
    expect(readFileSync(join(root, 'linked/planted.txt'), 'utf8')).toBe('x');
    expect(readdirSync(outside)).toEqual([]);
  });

  it('materializes an overlay as real files', () => {
    const { base, overlay } = openTempOverlay();
    base.fs.writeFile('/src/a.ts', 'a');
    base.fs.writeFile('/src/b.ts', 'b');
    overlay.fs.writeFile('/src/a.ts', 'A');
    overlay.fs.rm('/src/b.ts');
    overlay.fs.writeFile('/run.sh', 'x', { mode: 0o700 });
    const out = join(makeTempDir(), 'workspace');
    expect(materialize(overlay.fs, out)).toBe(3);
    expect(readFileSync(join(out, 'src/a.ts'), 'utf8')).toBe('A');
    expect(() => lstatSync(join(out, 'src/b.ts'))).toThrow();
    expect(lstatSync(join(out, 'run.sh')).mode & 0o777).toBe(0o700);
  });

  it('a missing project directory is a clear error', () => {
    const store = openTempStore();
    expect(() => importTree(store, join(makeTempDir(), 'nope'))).toThrow(/cannot read directory/);
  });
});
