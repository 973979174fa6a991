import { type ChildProcess, spawn } from 'node:child_process';
import { CAIRN_BIN } from './run-cairn.js';

/** A `cairn` process left running (a daemon, a worker), with what it printed as NDJSON. */
export interface BackgroundCairn {
  child: ChildProcess;
  lines: Record<string, unknown>[];
  /** The first line that `match` accepts, waiting for it (a generous limit only catches hangs). */
  waitFor(match: (line: Record<string, unknown>) => boolean, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** SIGTERM, then SIGKILL if it does not end. */
  stop(): Promise<void>;
}

/** Starts `cairn …` with `--json` in the background. */
export function startCairn(args: readonly string[], options: { cwd: string; home: string; env?: NodeJS.ProcessEnv }): BackgroundCairn {
  const child = spawn(process.execPath, [CAIRN_BIN, ...args, '--json'], {
    cwd: options.cwd,
    env: { ...process.env, CAIRN_HOME: options.home, NO_COLOR: '1', OLLAMA_HOST: 'http://127.0.0.1:9', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  let rest = '';
  let stderr = '';
  const waiters = new Set<() => void>();
  child.stdout!.on('data', (chunk: Buffer) => {
    rest += chunk.toString();
    const parts = rest.split('\n');
    rest = parts.pop()!;
    for (const part of parts) {
      try {
        lines.push(JSON.parse(part) as Record<string, unknown>);
      } catch {
        lines.push({ unparsed: part });
      }
    }
    for (const wake of waiters) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const wake of waiters) wake();
  });
  return {
    child,
    lines,
    waitFor: (match, timeoutMs = 120_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          const found = lines.find(match);
          if (found !== undefined) {
            waiters.delete(check);
            clearTimeout(timer);
            resolve(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            waiters.delete(check);
            clearTimeout(timer);
            reject(
              new Error(
                `cairn ${args.join(' ')} ended (${child.exitCode ?? child.signalCode}): ${stderr}${JSON.stringify(lines.slice(-5))}`,
              ),
            );
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`cairn ${args.join(' ')}: no matching line in time; stderr: ${stderr}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      }),
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
