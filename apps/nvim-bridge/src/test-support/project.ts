import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connectDaemon, type DaemonClient, type RunningDaemon, startDaemon } from '@cairn/daemon';
import { type AgentInfo, projectLayout } from '@cairn/orchestrator';

/** A temp project with a real Cairn daemon serving it, and a client of that daemon. */
export interface DaemonProject {
  root: string;
  home: string;
  env: NodeJS.ProcessEnv;
  daemon: RunningDaemon;
  client: DaemonClient;
  read(path: string): string;
  write(path: string, content: string): void;
  /** Spawns an agent running `code` and waits until it is reviewing. */
  propose(task: string, code: string): Promise<AgentInfo>;
  close(): Promise<void>;
}

export const GREET = ['export function greet(name) {', "  return 'hello';", '}', '', 'export const answer = 42;', ''].join('\n');

export async function startDaemonProject(
  files: Record<string, string> = { 'src/greet.js': GREET },
  options: { ollamaHost?: string } = {},
): Promise<DaemonProject> {
  const base = mkdtempSync(join(tmpdir(), 'cairn-nvim-'));
  const root = join(base, 'project');
  const home = join(base, 'home');
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  mkdirSync(root, { recursive: true });
  for (const [path, content] of Object.entries(files)) write(path, content);
  const daemon = await startDaemon(root, { cairnHome: home, ...options });
  const client = await connectDaemon(root, projectLayout(root, home).socketPath);
  if (client === undefined) throw new Error('the daemon does not answer');
  return {
    root,
    home,
    env: { CAIRN_HOME: home },
    daemon,
    client,
    read: (path) => readFileSync(join(root, path), 'utf8'),
    write,
    async propose(task, code) {
      const agent = await client.spawn(task, { code, lang: 'js' });
      const done = await client.wait(agent.id);
      if (done.state !== 'reviewing')
        throw new Error(`agent ${agent.id} ended ${done.state}: ${done.failure?.message ?? done.reason ?? ''}`);
      return done;
    },
    async close() {
      await client.close();
      await daemon.stop();
      rmSync(base, { recursive: true, force: true });
    },
  };
}

/** An agent program that replaces `from` with `to` in `path` and submits. */
export function replaceProgram(path: string, edits: [string, string][], summary = 'edit'): string {
  return [
    `let text = await read_file(${JSON.stringify(path)});`,
    ...edits.map(([from, to]) => `text = text.replace(${JSON.stringify(from)}, ${JSON.stringify(to)});`),
    `await write_file(${JSON.stringify(path)}, text);`,
    `await submit_result(${JSON.stringify(summary)}, [${JSON.stringify(path)}]);`,
  ].join('\n');
}
