import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSealed, type SealedRun, type ViewChoice } from './sealed-run.js';

let base: string;
let root: string;
let outside: string;
beforeAll(() => {
  base = mkdtempSync(join(tmpdir(), 'cairn-sealed-'));
  root = join(base, 'project');
  outside = join(base, 'user');
  mkdirSync(join(root, '.git'), { recursive: true });
  mkdirSync(join(root, '.agentfs'));
  mkdirSync(join(root, 'src'));
  mkdirSync(join(outside, '.ssh'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.txt'), 'a\n');
  writeFileSync(join(root, 'keep.txt'), 'keep\n');
  mkdirSync(join(root, 'dist', 'lib'), { recursive: true });
  writeFileSync(join(root, 'dist', 'lib', 'old.js'), 'old\n');
  writeFileSync(join(root, '.env'), 'TOKEN=secret-env\n');
  writeFileSync(join(root, 'src', '.env.local'), 'TOKEN=secret-env-local\n');
  mkdirSync(join(root, '.envs', '.production'), { recursive: true });
  writeFileSync(join(root, '.envs', '.production', '.django'), 'TOKEN=secret-env-folder\n');
  mkdirSync(join(root, 'a', 'b', 'c', 'd'), { recursive: true });
  writeFileSync(join(root, 'a', 'b', 'c', 'd', '.env'), 'TOKEN=secret-env-deep\n');
  writeFileSync(join(root, 'dist', '.env.production'), 'TOKEN=secret-env-built\n');
  writeFileSync(join(root, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(join(root, '.agentfs', 'stable.db'), 'stable');
  writeFileSync(join(root, '.agentfs', 'receipt.key'), 'receipt-secret');
  writeFileSync(join(outside, '.ssh', 'id_ed25519'), 'secret-key\n');
  writeFileSync(join(root, 'probe.cjs'), PROBE);
});

/** A program that serves HTTP on each address it is given and fetches from itself, then reaches for addresses outside. */
const PROBE = `const http = require('node:http');
const net = require('node:net');
const serve = (host) => new Promise((resolve) => {
  const server = http.createServer((_, res) => res.end('hello'));
  server.on('error', (e) => resolve(e.code));
  server.listen(0, host, () => {
    http.get({ host, port: server.address().port }, (res) => {
      let body = '';
      res.on('data', (d) => (body += d));
      res.on('end', () => server.close(() => resolve(body)));
    }).on('error', (e) => server.close(() => resolve(e.code)));
  });
});
const reach = (host) => new Promise((resolve) => {
  const socket = net.connect({ host, port: 80 });
  socket.on('connect', () => { socket.destroy(); resolve('connected'); });
  socket.on('error', (e) => resolve(e.code));
});
(async () => {
  const [local, outside] = process.argv.slice(2).map((list) => list.split(',').filter(Boolean));
  for (const host of local) console.log('serve ' + host + ' ' + (await serve(host)));
  for (const host of outside) console.log('reach ' + host + ' ' + (await reach(host)));
})();
`;

/** Whether this machine's loopback has ::1 (IPv6 may be turned off). */
const hasIpv6Loopback = Object.values(networkInterfaces()).some((addresses) => addresses?.some((a) => a.address === '::1'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

/** Every file under `dir` with its content hash: the working tree before and after a check must agree. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string, rel: string): void => {
    for (const name of readdirSync(path)) {
      const full = join(path, name);
      const key = rel === '' ? name : `${rel}/${name}`;
      if (statSync(full).isDirectory()) walk(full, key);
      else out[key] = createHash('sha256').update(readFileSync(full)).digest('hex');
    }
  };
  walk(dir, '');
  return out;
}

async function check(
  view: ViewChoice,
  script: string,
  options: { timeoutMs?: number; cap?: number; scratch?: number } = {},
): Promise<SealedRun & { text: string }> {
  const before = snapshot(base);
  const run = await runSealed({
    root,
    changes: [
      { path: 'src/a.txt', content: Buffer.from('proposed\n') },
      { path: 'src/new.txt', content: Buffer.from('new\n') },
      { path: 'keep.txt', content: null },
    ],
    command: ['sh', '-c', script],
    timeoutMs: options.timeoutMs ?? 60_000,
    outputCapBytes: options.cap ?? 64 * 1024,
    view,
    maxProcesses: 512,
    ...(options.scratch === undefined ? {} : { scratchBytes: options.scratch }),
  });
  expect(snapshot(base)).toEqual(before);
  return { ...run, text: run.output.toString('utf8') };
}

/** Polls `done` until it holds (true) or a minute passes (false). */
async function settle(done: () => boolean): Promise<boolean> {
  for (let i = 0; i < 600; i++) {
    if (done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return false;
}

function survivors(tag: string): string[] {
  return execFileSync('ps', ['-eo', 'pid,args'], { encoding: 'utf8' })
    .split('\n')
    .filter((line) => line.includes(tag) && !line.includes('ps -eo'));
}

describe.each(['auto', 'copy', 'unsealed'] as const)('a check in the %s view', (view) => {
  it('sees the working tree with the proposal on top, and nothing secret', async () => {
    const run = await check(
      view,
      `cat src/a.txt src/new.txt; ls; cat .env src/.env.local .envs/.production/.django a/b/c/d/.env dist/.env.production; cat ${outside}/.ssh/id_ed25519; echo "home=$HOME"; exit 3`,
    );
    expect(run.status).toBe('failed');
    expect(run.exitCode).toBe(3);
    expect(run.text).toContain('proposed\nnew\n');
    expect(run.text).not.toContain('keep.txt');
    expect(run.text).not.toContain('secret-env');
    expect(run.text).not.toContain(`home=${process.env.HOME}`);
    // Without namespaces a check can read the user's files by their absolute path, and says so.
    if (run.sealed) expect(run.text).not.toContain('secret-key');
    else expect(run.why).toMatch(/unsealed|home folder is not hidden/);
    if (view === 'unsealed') expect(run.sealed).toBe(false);
    if (view === 'copy') expect(run.view).toBe('copy');
    expect(run.why.length).toBeGreaterThan(0);
  });

  it('passes with exit 0, and keeps its writes out of the working tree', async () => {
    const run = await check(
      view,
      'echo built > src/a.txt; mkdir -p dist && echo out > dist/x; echo x > .agentfs/stable.db; echo y > ../escape.txt; echo z > .git/HEAD; echo done',
    );
    expect(run.text).toContain('done');
    expect(run.status).toBe('passed');
    expect(run.exitCode).toBe(0);
    if (run.sealed) expect(run.text).toMatch(/\.git\/HEAD: Read-only file system/);
  });

  it('removes and rebuilds a folder of the working tree, as a clean build does', async () => {
    const run = await check(view, 'rm -rf dist && mkdir -p dist/lib && echo new > dist/lib/new.js && ls -R dist');
    expect(run.text).not.toMatch(/Input\/output error|old\.js/);
    expect(run.status).toBe('passed');
    expect(run.text).toContain('new.js');
  });

  it('refuses the network when sealed', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    try {
      const run = await check(
        view,
        `node -e "const s=require('net').connect(${port},'127.0.0.1');s.on('connect',()=>{console.log('connected');process.exit(0)});s.on('error',e=>{console.log('refused '+e.code);process.exit(1)})"`,
      );
      if (run.sealed) {
        expect(run.text).toMatch(/refused E/);
        expect(connections).toBe(0);
      } else expect(run.why).toMatch(/no network isolation|unsealed/);
    } finally {
      server.close();
    }
  });

  it('has a working loopback: an HTTP server on 127.0.0.1, ::1 or localhost answers; sealed, nothing outside has a route', async () => {
    const local = ['127.0.0.1', 'localhost', ...(hasIpv6Loopback ? ['::1'] : [])];
    const outside = view === 'unsealed' ? [] : ['1.1.1.1', '10.255.255.1'];
    const run = await check(view, `node probe.cjs ${local.join(',')} ${outside.join(',')},`);
    expect(run.status, run.text).toBe('passed');
    for (const host of local) expect(run.text).toContain(`serve ${host} hello\n`);
    if (!run.sealed) return;
    expect(run.why).not.toMatch(/loopback/);
    for (const host of outside) expect(run.text).toContain(`reach ${host} ENETUNREACH\n`);
  });

  it('kills the whole process tree on timeout, daemons included', async () => {
    const tag = `31${view.length}7${Math.floor(Math.random() * 1000)}`;
    const run = await check(
      view,
      `setsid sh -c "sleep ${tag}" & for i in 1 2 3 4 5 6 7 8; do sleep ${tag} & done; echo started; sleep ${tag}`,
      {
        timeoutMs: 3_000,
      },
    );
    expect(run.status).toBe('timed-out');
    expect(run.text).toContain('started');
    expect(survivors(`sleep ${tag}`)).toEqual([]);
  });

  it('leaves no daemon behind when the command ends', async () => {
    const tag = `41${view.length}7${Math.floor(Math.random() * 1000)}`;
    const run = await check(view, `setsid sh -c "sleep ${tag}" >/dev/null 2>&1 & echo bye`);
    expect(run.status).toBe('passed');
    expect(survivors(`sleep ${tag}`)).toEqual([]);
  });

  it('leaves no daemon behind that cleared its environment and left its group', async () => {
    const tag = `61${view.length}7${Math.floor(Math.random() * 1000)}`;
    const run = await check(view, `setsid env -i /bin/sh -c "sleep ${tag}" >/dev/null 2>&1 & echo bye`);
    expect(run.status).toBe('passed');
    expect(await settle(() => survivors(`sleep ${tag}`).length === 0)).toBe(true);
  });

  it('caps what it prints (1 GB) and what it writes to /tmp', async () => {
    const run = await check(view, 'head -c 1000000000 /dev/zero | tr "\\0" x; echo', { cap: 4096 });
    expect(run.status).toBe('passed');
    // its beginning and its end, with how much was cut between them
    expect(run.output.toString()).toBe(
      `${'x'.repeat(2048)}\n[… ${1_000_000_001 - 4096} bytes of output cut here …]\n${'x'.repeat(2047)}\n`,
    );
    expect(run.outputBytes).toBe(1_000_000_001);
    expect(run.truncated).toBe(true);
    if (view !== 'unsealed') {
      const full = await check(view, 'head -c 100000000 /dev/zero > /tmp/fill; echo "exit $?"', { scratch: 8 * 1024 * 1024 });
      expect(full.text).toMatch(/No space left on device/);
    }
  });

  it('reports a missing program as an error naming it', async () => {
    const run = await runSealed({ root, changes: [], command: ['cairn-no-such-program'], timeoutMs: 60_000, outputCapBytes: 1024, view });
    expect(run.status).toBe('error');
    expect(run.error).toBe('command not found: cairn-no-such-program');
  });
});

describe('a sealed check', () => {
  it('stops a fork bomb at its process limit and kills it all', async () => {
    const run = await check('auto', 'bomb() { bomb | bomb & }; bomb', { timeoutMs: 5_000 });
    if (!run.sealed) return;
    expect(['timed-out', 'passed', 'failed']).toContain(run.status);
    expect(survivors('bomb')).toEqual([]);
  });

  it('cannot undo the mounts that seal it: what they hide stays hidden, what is read-only stays so', async () => {
    const run = await check(
      'auto',
      [
        `umount ${root}/.agentfs && cat ${root}/.agentfs/receipt.key`,
        'umount /etc/shadow && echo shadow-unmounted',
        `mount -o remount,rw,bind ${root}/.git && echo x > ${root}/.git/HEAD && echo git-writable`,
        'mount -o remount,rw,bind /usr && echo usr-writable',
        'echo end',
      ].join('; '),
    );
    if (!run.sealed) return;
    expect(run.text).toContain('end');
    expect(run.text).not.toMatch(/receipt-secret|shadow-unmounted|git-writable|usr-writable/);
  });

  it('dies with the process that runs it: a Cairn killed mid-check leaves nothing running', async () => {
    const tag = `51${Math.floor(Math.random() * 100000)}`;
    const sealedRun = new URL('../dist/sealed-run.js', import.meta.url).href;
    const request = { root, changes: [], command: ['sh', '-c', `sleep ${tag}`], timeoutMs: 600_000, outputCapBytes: 1024 };
    // the request goes by the environment, so no argument of the owner itself names the sleep
    const owner = spawn(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { runSealed } = await import(process.env.SEALED_RUN); await runSealed(JSON.parse(process.env.REQUEST));`,
      ],
      { stdio: 'ignore', env: { ...process.env, SEALED_RUN: sealedRun, REQUEST: JSON.stringify(request) } },
    );
    try {
      expect(await settle(() => survivors(`sleep ${tag}`).length > 0)).toBe(true);
    } finally {
      owner.kill('SIGKILL');
    }
    expect(await settle(() => survivors(`sleep ${tag}`).length === 0)).toBe(true);
    // the folder it left is removed by the next check of any process
    const left = `cairn-check-${owner.pid}-`;
    expect(readdirSync(tmpdir()).some((name) => name.startsWith(left))).toBe(true);
    await check('auto', 'true');
    expect(readdirSync(tmpdir()).some((name) => name.startsWith(left))).toBe(false);
  });

  it('never binds a folder on PATH that holds the project (its neighbours would show)', async () => {
    const path = process.env.PATH;
    process.env.PATH = `${base}:${path}`;
    try {
      const run = await check('auto', `cat ${outside}/.ssh/id_ed25519; ls ${base}`);
      if (run.sealed) expect(run.text).not.toContain('secret-key');
      // the listing of the project's parent holds the project alone
      if (run.sealed) expect(run.text.split('\n').filter((line) => !line.startsWith('cat:'))).toEqual(['project', '']);
    } finally {
      process.env.PATH = path;
    }
  });

  it('takes a copy for a project whose path an overlay cannot name, and still uses the overlay for others', async () => {
    const odd = join(base, 'odd,project');
    mkdirSync(odd, { recursive: true });
    writeFileSync(join(odd, 'x.txt'), 'x\n');
    const copied = await runSealed({ root: odd, changes: [], command: ['cat', 'x.txt'], timeoutMs: 60_000, outputCapBytes: 1024 });
    expect(copied.output.toString()).toBe('x\n');
    const normal = await runSealed({ root, changes: [], command: ['cat', 'keep.txt'], timeoutMs: 60_000, outputCapBytes: 1024 });
    expect(normal.output.toString()).toBe('keep\n');
    if (normal.view === 'overlay') {
      expect(copied.view).toBe('copy');
      expect(copied.why).toMatch(/"," or ":"/);
    }
    rmSync(odd, { recursive: true, force: true });
  });

  it('falls back to an unsealed copy where namespaces are unavailable, and says why', async () => {
    const run = await runSealed({
      root,
      changes: [],
      command: ['sh', '-c', 'cat keep.txt'],
      timeoutMs: 60_000,
      outputCapBytes: 1024,
      unshare: 'cairn-no-unshare',
    });
    expect(run.status).toBe('passed');
    expect(run.output.toString()).toBe('keep\n');
    expect(run).toMatchObject({ view: 'copy', sealed: false });
    expect(run.why).toMatch(/namespaces are unavailable \(unshare could not start: .*ENOENT.*\): no network isolation/);
  });

  it('refuses a proposal path that leaves the project', async () => {
    const run = await runSealed({
      root,
      changes: [{ path: '../x', content: Buffer.from('x') }],
      command: ['true'],
      timeoutMs: 60_000,
      outputCapBytes: 1024,
    });
    expect(run.status).toBe('error');
    expect(run.error).toMatch(/not normalised/);
  });
});
