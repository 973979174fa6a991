import { lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { isAgentFSError } from './errors.js';
import type { FileSystem } from './file-system.js';
import { Overlay } from './overlay.js';
import { makeTempDir } from './test-support/temp-dir.js';

type Op =
  | { op: 'write'; path: string; content: string }
  | { op: 'rm'; path: string; recursive: boolean }
  | { op: 'mkdir'; path: string; recursive: boolean }
  | { op: 'rename'; from: string; to: string };

type Tree = Record<string, string | null>;

const segment = fc.constantFrom('a', 'b', 'c');
const pathArb = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
const contentArb = fc.string({ maxLength: 12 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('write' as const), path: pathArb, content: contentArb }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rm' as const), path: pathArb, recursive: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('mkdir' as const), path: pathArb, recursive: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('rename' as const), from: pathArb, to: pathArb }) },
);
const baseArb = fc.array(fc.tuple(pathArb, contentArb), { maxLength: 8 });

/** Outcome of one operation: 'ok' or the error code, with Node's spellings mapped to POSIX ones. */
function outcome(fn: () => void): string {
  try {
    fn();
    return 'ok';
  } catch (error) {
    const code = isAgentFSError(error) ? error.code : ((error as NodeJS.ErrnoException).code ?? 'unknown');
    return code === 'ERR_FS_EISDIR' ? 'EISDIR' : code;
  }
}

function applyToDisk(root: string, op: Op): string {
  const at = (p: string) => join(root, p);
  switch (op.op) {
    case 'write':
      return outcome(() => {
        mkdirSync(dirname(at(op.path)), { recursive: true });
        writeFileSync(at(op.path), op.content);
      });
    case 'rm':
      return outcome(() => rmSync(at(op.path), { recursive: op.recursive }));
    case 'mkdir':
      return outcome(() => mkdirSync(at(op.path), { recursive: op.recursive }));
    case 'rename':
      return outcome(() => renameSync(at(op.from), at(op.to)));
  }
}

function applyToStore(fs: FileSystem, op: Op): string {
  switch (op.op) {
    case 'write':
      return outcome(() => fs.writeFile(op.path, op.content));
    case 'rm':
      return outcome(() => fs.rm(op.path, { recursive: op.recursive }));
    case 'mkdir':
      return outcome(() => fs.mkdir(op.path, { recursive: op.recursive }));
    case 'rename':
      return outcome(() => fs.rename(op.from, op.to));
  }
}

/** writeFile's parent creation fails on a file in the way; Node says EEXIST or ENOTDIR depending on where. */
function comparable(op: Op, code: string): string {
  return op.op === 'write' && (code === 'EEXIST' || code === 'ENOTDIR') ? 'ENOTDIR' : code;
}

function diskTree(root: string, rel = '', out: Tree = {}): Tree {
  for (const name of readdirSync(join(root, rel)).sort()) {
    const path = rel === '' ? name : `${rel}/${name}`;
    if (lstatSync(join(root, path)).isDirectory()) {
      out[path] = null;
      diskTree(root, path, out);
    } else out[path] = readFileSync(join(root, path), 'utf8');
  }
  return out;
}

function storeTree(fs: FileSystem, rel = '', out: Tree = {}): Tree {
  for (const name of fs.readdir('/' + rel)) {
    const path = rel === '' ? name : `${rel}/${name}`;
    if (fs.lstat(path).isDirectory()) {
      out[path] = null;
      storeTree(fs, path, out);
    } else out[path] = fs.readFile(path, 'utf8');
  }
  return out;
}

function seed(base: AgentFS, root: string, files: [string, string][]): void {
  for (const [path, content] of files) {
    const op: Op = { op: 'write', path, content };
    expect(comparable(op, applyToStore(base.fs, op))).toBe(comparable(op, applyToDisk(root, op)));
  }
}

describe('model-based: random operations give the same tree as a real directory', () => {
  it('on a store', () => {
    fc.assert(
      fc.property(fc.array(opArb, { maxLength: 25 }), (ops) => {
        const dir = makeTempDir();
        const root = join(dir, 'tree');
        mkdirSync(root);
        const store = AgentFS.open(join(dir, 's.db'), { durability: 'normal' });
        try {
          for (const op of ops)
            expect(comparable(op, applyToStore(store.fs, op)), JSON.stringify(op)).toBe(comparable(op, applyToDisk(root, op)));
          expect(storeTree(store.fs)).toEqual(diskTree(root));
        } finally {
          store.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 200 },
    );
  });

  it('on an overlay: same tree as the directory, base untouched, accept reproduces it in the base', () => {
    fc.assert(
      fc.property(baseArb, fc.array(opArb, { maxLength: 25 }), (files, ops) => {
        const dir = makeTempDir();
        const root = join(dir, 'tree');
        mkdirSync(root);
        const base = AgentFS.open(join(dir, 'stable.db'), { durability: 'normal' });
        const overlay = Overlay.open(join(dir, 'agent.db'), base);
        try {
          seed(base, root, files);
          const before = storeTree(base.fs);
          for (const op of ops) {
            expect(comparable(op, applyToStore(overlay.fs, op)), JSON.stringify(op)).toBe(comparable(op, applyToDisk(root, op)));
          }
          const expected = diskTree(root);
          expect(storeTree(overlay.fs)).toEqual(expected);
          expect(storeTree(base.fs)).toEqual(before);
          const result = overlay.accept();
          expect(result.conflicts).toEqual([]);
          expect(storeTree(base.fs)).toEqual(expected);
          expect(overlay.changes()).toEqual([]);
          expect(storeTree(overlay.fs)).toEqual(expected);
        } finally {
          overlay.close();
          base.close();
          rmSync(dir, { recursive: true, force: true });
        }
      }),
      { numRuns: 300 },
    );
  });
});
