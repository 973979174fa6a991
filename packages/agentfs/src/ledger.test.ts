import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { Ledger } from './ledger.js';
import { Overlay } from './overlay.js';
import { codeOf } from './test-support/error-code.js';
import { makeTempDir } from './test-support/temp-dir.js';

describe('ledger: rejected overlays are retired, restorable until collected', () => {
  it('retires, lists, restores with content intact', () => {
    const dir = makeTempDir();
    let now = 1_000;
    const ledger = Ledger.open(join(dir, 'bin.db'), { clock: () => now });
    const base = AgentFS.open(join(dir, 'stable.db'));
    const overlayPath = join(dir, 'agent-7.db');
    const overlay = Overlay.open(overlayPath, base);
    overlay.fs.writeFile('/work.txt', 'agent work');
    overlay.close();
    try {
      const entry = ledger.retire('7', overlayPath, 'delete:wrong approach');
      expect(existsSync(overlayPath)).toBe(false);
      expect(existsSync(entry.retiredPath)).toBe(true);
      expect(ledger.list().map((e) => [e.agentId, e.reason])).toEqual([['7', 'delete:wrong approach']]);
      now = 2_000;
      const restored = ledger.restore(entry.id);
      expect(restored.restoredAt).toBe(2_000);
      expect(ledger.list()).toEqual([]);
      const reopened = Overlay.open(overlayPath, base);
      expect(reopened.fs.readFile('/work.txt', 'utf8')).toBe('agent work');
      reopened.close();
      expect(codeOf(() => ledger.restore(entry.id))).toBe('EINVAL');
    } finally {
      base.close();
      ledger.close();
    }
  });

  it('collects entries older than a time; a collected overlay cannot be restored', () => {
    const dir = makeTempDir();
    let now = 100;
    const ledger = Ledger.open(join(dir, 'bin.db'), { clock: () => now });
    try {
      writeFileSync(join(dir, 'agent-a.db'), 'a');
      writeFileSync(join(dir, 'agent-a.db-wal'), 'wal');
      const a = ledger.retire('a', join(dir, 'agent-a.db'), 'delete:x');
      now = 500;
      writeFileSync(join(dir, 'agent-b.db'), 'b');
      const b = ledger.retire('b', join(dir, 'agent-b.db'), 'delete:y');
      expect(existsSync(a.retiredPath + '-wal')).toBe(true);
      now = 900;
      expect(ledger.collect(200).map((e) => e.agentId)).toEqual(['a']);
      expect(existsSync(a.retiredPath)).toBe(false);
      expect(existsSync(a.retiredPath + '-wal')).toBe(false);
      expect(existsSync(b.retiredPath)).toBe(true);
      expect(codeOf(() => ledger.restore(a.id))).toBe('ENOENT');
      expect(ledger.list({ all: true }).map((e) => [e.agentId, e.collectedAt])).toEqual([
        ['a', 900],
        ['b', null],
      ]);
    } finally {
      ledger.close();
    }
  });

  it('refuses to retire a missing file or restore over an existing one', () => {
    const dir = makeTempDir();
    const ledger = Ledger.open(join(dir, 'bin.db'));
    try {
      expect(codeOf(() => ledger.retire('x', join(dir, 'none.db'), 'r'))).toBe('ENOENT');
      writeFileSync(join(dir, 'agent-c.db'), 'c');
      const entry = ledger.retire('c', join(dir, 'agent-c.db'), 'r');
      writeFileSync(join(dir, 'agent-c.db'), 'someone else');
      expect(codeOf(() => ledger.restore(entry.id))).toBe('EEXIST');
      expect(codeOf(() => ledger.restore(999))).toBe('ENOENT');
    } finally {
      ledger.close();
    }
  });
});

describe('ledger: a rebuilt ledger', () => {
  it('adopts an overlay already in the trash, restores it, and refuses one that is gone without changing anything', () => {
    const dir = makeTempDir();
    const ledger = Ledger.open(join(dir, 'bin.db'), { clock: () => 5_000 });
    const base = AgentFS.open(join(dir, 'stable.db'));
    try {
      const overlay = Overlay.open(join(dir, 'agent-ab12.db'), base);
      overlay.fs.writeFile('/kept.txt', 'kept');
      overlay.close();
      const retired = ledger.retire('ab12', join(dir, 'agent-ab12.db'), 'first');
      const fresh = Ledger.open(join(dir, 'bin2.db'), { clock: () => 6_000 });
      try {
        const adopted = fresh.adopt({
          agentId: 'ab12',
          originalPath: join(dir, 'agent-ab12.db'),
          retiredPath: retired.retiredPath,
          reason: 'recovered',
          retiredAt: 6_000,
        });
        expect(fresh.list().map((e) => [e.agentId, e.reason])).toEqual([['ab12', 'recovered']]);
        const missing = fresh.adopt({
          ...adopted,
          agentId: 'cd34',
          originalPath: join(dir, 'agent-cd34.db'),
          retiredPath: join(dir, 'trash', 'gone.db'),
        });
        expect(codeOf(() => fresh.restore(missing.id))).toBe('ENOENT');
        expect(fresh.get(missing.id)?.restoredAt).toBeNull();
        fresh.restore(adopted.id);
        const back = Overlay.open(join(dir, 'agent-ab12.db'), base);
        expect(back.fs.readFile('/kept.txt', 'utf8')).toBe('kept');
        back.close();
      } finally {
        fresh.close();
      }
    } finally {
      ledger.close();
      base.close();
    }
  });
});
