#!/usr/bin/env node
// `pnpm cairn <args>` from the repository: builds what changed (quietly, through turbo's cache), then runs the
// cairn command with the given arguments in the folder pnpm was started from.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const build = spawnSync('pnpm', ['exec', 'turbo', 'run', 'build', '--output-logs=errors-only'], {
  cwd: root,
  encoding: 'utf8',
  env: { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' },
});
if (build.status !== 0) {
  process.stderr.write(`${build.stdout ?? ''}${build.stderr ?? ''}`);
  process.stderr.write(`cairn: building Cairn failed${build.error ? ` (${build.error.message})` : ''}; see above\n`);
  process.exit(1);
}
const cli = spawnSync(process.execPath, [fileURLToPath(new URL('../apps/cli/bin/cairn.mjs', import.meta.url)), ...process.argv.slice(2)], {
  cwd: process.env.INIT_CWD ?? process.cwd(),
  stdio: 'inherit',
});
process.exit(cli.status ?? 1);
