import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AgentFS as SdkAgentFS } from 'agentfs-sdk';
import { describe, expect, it } from 'vitest';
import { AgentFS } from './agentfs.js';
import { Overlay } from './overlay.js';
import { makeTempDir } from './test-support/temp-dir.js';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));

/**
 * Runs `body` (async, with `sdk` open on `path`) in a fresh Node process and returns what it returns.
 * The SDK's engine caches a database per path for the life of a process, even after close(), so a
 * read that must see another writer's changes runs in a process of its own.
 */
function inSdkProcess(path: string, body: string): unknown {
  const script = `import { AgentFS } from 'agentfs-sdk';
const sdk = await AgentFS.open({ path: ${JSON.stringify(path)} });
try { const out = await (async () => { ${body} })(); process.stdout.write(JSON.stringify(out ?? null)); }
finally { await sdk.close(); }`;
  return JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { cwd: PACKAGE_DIR, encoding: 'utf8' }));
}

describe('interop with agentfs-sdk 0.6', () => {
  it('the SDK reads what Cairn wrote: files, directories, symlinks, modes, kv, tool calls', async () => {
    const path = join(makeTempDir(), 'cairn.db');
    const cairn = AgentFS.open(path);
    const big = Buffer.from(Array.from({ length: 10_000 }, (_, i) => (i * 7) % 256));
    cairn.fs.writeFile('/src/main.ts', 'console.log("hi");\n', { mode: 0o600 });
    cairn.fs.writeFile('/assets/big.bin', big);
    cairn.fs.mkdir('/empty');
    cairn.fs.symlink('/src/main.ts', '/link');
    cairn.kv.set('agent:1', { state: 'RUNNING', n: 3 });
    const callId = cairn.tools.record({ name: 'read_file', parameters: { path: 'a' }, result: 'text', startedAt: 10, completedAt: 12 });
    cairn.close();

    const sdk = await SdkAgentFS.open({ path });
    try {
      expect(await sdk.fs.readFile('/src/main.ts', 'utf8')).toBe('console.log("hi");\n');
      expect(Buffer.compare(await sdk.fs.readFile('/assets/big.bin'), big)).toBe(0);
      expect(await sdk.fs.readdir('/')).toEqual(['assets', 'empty', 'link', 'src']);
      const st = await sdk.fs.stat('/src/main.ts');
      expect(st.mode).toBe(0o100600);
      expect(st.size).toBe(19);
      expect((await sdk.fs.stat('/empty')).isDirectory()).toBe(true);
      expect(await sdk.fs.readlink('/link')).toBe('/src/main.ts');
      expect(await sdk.kv.get('agent:1')).toEqual({ state: 'RUNNING', n: 3 });
      expect(await sdk.tools.get(callId)).toMatchObject({ name: 'read_file', parameters: { path: 'a' }, result: 'text' });
    } finally {
      await sdk.close();
    }
  });

  it('Cairn reads what the SDK wrote, and both can keep writing the same database', async () => {
    const path = join(makeTempDir(), 'sdk.db');
    const sdk = await SdkAgentFS.open({ path });
    const data = Buffer.from(Array.from({ length: 9000 }, (_, i) => i % 256));
    await sdk.fs.writeFile('/docs/readme.md', '# Title\n');
    await sdk.fs.writeFile('/bin/blob', data);
    await sdk.fs.mkdir('/made');
    await sdk.fs.symlink('/docs/readme.md', '/readme');
    await sdk.kv.set('config', { theme: 'dark' });
    const started = Math.floor(Date.now() / 1000);
    const sdkCall = await sdk.tools.record('search', started, started + 1, { q: 'x' }, { hits: 2 });
    await sdk.close();

    const cairn = AgentFS.open(path);
    try {
      expect(cairn.fs.readFile('/docs/readme.md', 'utf8')).toBe('# Title\n');
      expect(cairn.fs.readFile('/bin/blob').equals(data)).toBe(true);
      expect(cairn.fs.readdir('/')).toEqual(['bin', 'docs', 'made', 'readme']);
      expect(cairn.fs.readlink('/readme')).toBe('/docs/readme.md');
      expect(cairn.fs.readFile('/readme', 'utf8')).toBe('# Title\n');
      expect(cairn.kv.get('config')).toEqual({ theme: 'dark' });
      expect(cairn.tools.get(sdkCall)).toMatchObject({ name: 'search', parameters: { q: 'x' }, result: { hits: 2 }, status: 'success' });
      cairn.fs.writeFile('/docs/readme.md', '# Changed by Cairn\n');
      cairn.tools.record({ name: 'write_file', parameters: {}, result: true, startedAt: 1, completedAt: 1 });
    } finally {
      cairn.close();
    }
    expect(
      inSdkProcess(
        path,
        `await sdk.tools.record('after', 1, 2, {}, 'ok');
        return [await sdk.fs.readFile('/docs/readme.md', 'utf8'), (await sdk.tools.getByName('write_file', 10)).length];`,
      ),
    ).toEqual(['# Changed by Cairn\n', 1]);
    const reopened = AgentFS.open(path);
    try {
      expect(reopened.tools.list({ name: 'after' }).map((c) => c.result)).toEqual(['ok']);
    } finally {
      reopened.close();
    }
  });

  it('an overlay can sit on a base the SDK made, and the SDK can read the accepted result', async () => {
    const dir = makeTempDir();
    const basePath = join(dir, 'stable.db');
    const sdk = await SdkAgentFS.open({ path: basePath });
    await sdk.fs.writeFile('/app.py', 'print(1)\n');
    await sdk.close();

    const base = AgentFS.open(basePath);
    const overlay = Overlay.open(join(dir, 'agent.db'), base);
    overlay.fs.writeFile('/app.py', 'print(2)\n');
    expect(base.fs.readFile('/app.py', 'utf8')).toBe('print(1)\n');
    overlay.accept();
    overlay.close();
    base.close();

    expect(inSdkProcess(basePath, `return sdk.fs.readFile('/app.py', 'utf8');`)).toBe('print(2)\n');
  });
});
