import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostsWithLocalhost } from './loopback-hosts.js';

const dir = mkdtempSync(join(tmpdir(), 'cairn-hosts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function hosts(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

describe('the hosts file of a sealed check', () => {
  it("is the machine's own when that names localhost", () => {
    expect(hostsWithLocalhost(hosts('plain', '127.0.0.1 localhost\n'))).toBeUndefined();
    expect(hostsWithLocalhost(hosts('aliases', '127.0.0.1\tmybox LocalHost.localdomain LOCALHOST\n'))).toBeUndefined();
  });

  it('gains localhost on 127.0.0.1 and ::1 when the machine resolves it otherwise', () => {
    expect(hostsWithLocalhost(hosts('none', '10.0.0.5 db # not localhost\n'))).toBe(
      '10.0.0.5 db # not localhost\n127.0.0.1 localhost\n::1 localhost\n',
    );
    expect(hostsWithLocalhost(hosts('unended', '10.0.0.5 db'))).toBe('10.0.0.5 db\n127.0.0.1 localhost\n::1 localhost\n');
  });

  it('is left alone when it is missing or a link (nothing can be bound over it safely)', () => {
    expect(hostsWithLocalhost(join(dir, 'missing'))).toBeUndefined();
    const link = join(dir, 'link');
    symlinkSync(hosts('target', '10.0.0.5 db\n'), link);
    expect(hostsWithLocalhost(link)).toBeUndefined();
  });
});
