import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The built `cairn` binary, run as users run it. */
export const CAIRN_BIN = fileURLToPath(new URL('../../bin/cairn.mjs', import.meta.url));

/** What one run of the binary printed, and its exit code. */
export interface CairnRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout as NDJSON objects (in `--json` mode). */
  json: Record<string, unknown>[];
}

/** Runs `cairn …` in `cwd` with a private `CAIRN_HOME` and no colour; resolves when it exits. */
export function runCairn(
  args: readonly string[],
  options: { cwd: string; home: string; env?: NodeJS.ProcessEnv; uid?: number; gid?: number; timeoutMs?: number },
): Promise<CairnRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CAIRN_BIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, CAIRN_HOME: options.home, NO_COLOR: '1', OLLAMA_HOST: 'http://127.0.0.1:9', ...options.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(options.uid === undefined ? {} : { uid: options.uid, gid: options.gid ?? options.uid }),
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const json = stdout
        .split('\n')
        .filter((line) => line.trim().startsWith('{'))
        .map((line) => {
          try {
            return JSON.parse(line) as Record<string, unknown>;
          } catch {
            return { unparsed: line };
          }
        });
      resolve({ code: code ?? -1, stdout, stderr, json });
    });
  });
}

/** A temp project (with files) and a temp `CAIRN_HOME`. */
export interface CliProject {
  root: string;
  home: string;
  base: string;
  write(path: string, content: string | Uint8Array): void;
  run(args: readonly string[], options?: { env?: NodeJS.ProcessEnv; uid?: number; cwd?: string }): Promise<CairnRun>;
  cleanup(): void;
}

export function makeCliProject(files: Record<string, string>): CliProject {
  const base = mkdtempSync(join(tmpdir(), 'cairn-cli-'));
  const root = join(base, 'project');
  const home = join(base, 'home');
  mkdirSync(root, { recursive: true });
  const write = (path: string, content: string | Uint8Array) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  for (const [path, content] of Object.entries(files)) write(path, content);
  return {
    root,
    home,
    base,
    write,
    run: (args, options = {}) =>
      runCairn(args, {
        cwd: options.cwd ?? root,
        home,
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.uid === undefined ? {} : { uid: options.uid }),
      }),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

/** The last `{"type":"result"}` line of a JSON run. */
export function resultOf(run: CairnRun): Record<string, unknown> {
  const result = [...run.json].reverse().find((line) => line.type === 'result' || line.type === 'error');
  if (result === undefined) throw new Error(`no result line in: ${run.stdout}\n${run.stderr}`);
  return result;
}
