// A vitest global setup whose teardown fails the run when a test left a process of Cairn's behind (a sandbox
// child, a daemon, a CLI, a Neovim bridge): every process the run started carries a token in its environment,
// and an orphan of this checkout started during the run is caught by its command line.
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TOKEN_VARIABLE = 'CAIRN_TEST_RUN';
/** Entry points of this checkout whose processes must not outlive the tests. */
const ENTRIES = ['packages/sandbox/dist/child/', 'apps/cli/bin/', 'apps/cli/dist/', 'apps/nvim-bridge/'].map((p) => ROOT + p);
/** How long processes a test stopped may take to exit before they count as left behind. */
const GRACE_MS = 5_000;

interface Leftover {
  pid: number;
  command: string;
  cwd: string;
}

function pids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => pid !== process.pid);
}

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A live (not zombie) process, described; undefined when it is gone or not readable. */
function describeProcess(pid: number): (Leftover & { environ: string; parent: number }) | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z') return undefined;
  let cwd = '?';
  try {
    cwd = readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    // another user's process, or gone
  }
  return {
    pid,
    parent: Number(fields[1]),
    command: (read(`/proc/${pid}/cmdline`) ?? '').split('\0').join(' ').trim(),
    environ: read(`/proc/${pid}/environ`) ?? '',
    cwd,
  };
}

function leftovers(token: string, before: ReadonlySet<number>): Leftover[] {
  const out: Leftover[] = [];
  for (const pid of pids()) {
    if (before.has(pid)) continue;
    const found = describeProcess(pid);
    if (found === undefined) continue;
    // vitest's own workers and esbuild's service carry the token too, and end after this teardown
    if (found.command.includes('/node_modules/')) continue;
    const ours = found.environ.split('\0').includes(`${TOKEN_VARIABLE}=${token}`);
    const orphanOfCheckout = found.parent === 1 && ENTRIES.some((entry) => found.command.includes(entry));
    if (ours || orphanOfCheckout) out.push({ pid, command: found.command, cwd: found.cwd });
  }
  return out;
}

export default function setup(): (() => Promise<void>) | undefined {
  if (process.platform !== 'linux') return undefined;
  const token = randomBytes(8).toString('hex');
  const before = new Set(pids());
  process.env[TOKEN_VARIABLE] = token;
  return async () => {
    const deadline = Date.now() + GRACE_MS;
    let left = leftovers(token, before);
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = leftovers(token, before);
    }
    if (left.length === 0) return;
    for (const { pid } of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    // vitest reports an error thrown here but keeps its exit code: fail the run explicitly
    process.exitCode = 1;
    throw new Error(
      `the tests left ${left.length} process${left.length === 1 ? '' : 'es'} running (now killed):\n` +
        left.map((p) => `  pid ${p.pid}: ${p.command} (in ${p.cwd})`).join('\n'),
    );
  };
}
