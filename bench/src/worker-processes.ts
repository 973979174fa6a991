import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The built `cairn` binary, as users run it. */
export const CAIRN_BIN = fileURLToPath(new URL('../../apps/cli/bin/cairn.mjs', import.meta.url));

/** `cairn worker enroll --name NAME` with its own home; returns the key line the coordinator lists. */
export function enrollWorker(home: string, name: string): string {
  const out = execFileSync(process.execPath, [CAIRN_BIN, 'worker', 'enroll', '--name', name, '--json'], {
    env: { ...process.env, CAIRN_HOME: home },
  }).toString();
  const result = out
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { type: string; key?: string })
    .find((line) => line.type === 'result');
  return result!.key!;
}

/** What a `cairn worker` process is started with. */
export interface WorkerProcess {
  home: string;
  name: string;
  queue: string;
  coordinator: string;
  bearer: string;
  concurrency?: number;
  env?: NodeJS.ProcessEnv;
}

/** Starts `cairn worker` for a coordinator, its output ignored. */
export function startWorkerProcess(worker: WorkerProcess): ChildProcess {
  const args = [CAIRN_BIN, 'worker', '--queue', worker.queue, '--coordinator', worker.coordinator, '--token', worker.bearer];
  args.push('--name', worker.name, ...(worker.concurrency === undefined ? [] : ['--concurrency', String(worker.concurrency)]));
  return spawn(process.execPath, args, {
    env: { ...process.env, CAIRN_HOME: worker.home, NO_COLOR: '1', ...worker.env },
    stdio: 'ignore',
  });
}

/** Sends SIGTERM to each process and waits until all have exited. */
export async function stopProcesses(processes: readonly ChildProcess[]): Promise<void> {
  for (const child of processes) child.kill('SIGTERM');
  await Promise.all(
    processes.map((child) =>
      child.exitCode === null && child.signalCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined,
    ),
  );
}
