import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type CliProject, makeCliProject, resultOf, runCairn } from './test-support/run-cairn.js';

/** Where secrets sit in a home folder, each with a line an agent must never see. */
const SECRETS: Record<string, string> = {
  '.ssh/id_ed25519': 'PRIVATE KEY\n',
  '.ssh/config': 'Host x\n',
  '.aws/credentials': 'aws_secret_access_key = s\n',
  '.gnupg/private-keys-v1.d/a.key': 'k\n',
  '.config/gh/hosts.yml': 'oauth_token: gho_x\n',
  '.docker/config.json': '{"auths":{}}\n',
  '.kube/config': 'token: t\n',
  '.config/gcloud/credentials.db': 'c\n',
  '.netrc': 'machine x password p\n',
  '.npmrc': '//registry.npmjs.org/:_authToken=npm_x\n',
  '.pypirc': 'password = p\n',
  'deploy/id_rsa': 'PRIVATE KEY\n',
};

let project: CliProject | undefined;
let base: string | undefined;

afterEach(() => {
  project?.cleanup();
  project = undefined;
  if (base !== undefined) rmSync(base, { recursive: true, force: true });
  base = undefined;
});

describe('secrets are refused to agents as .env is', () => {
  it('reading, listing, searching and writing them is denied, and `cairn log` shows each refusal with its reason', async () => {
    project = makeCliProject({ 'src/a.txt': 'a\n', ...SECRETS });
    const paths = Object.keys(SECRETS);
    const program = `
const seen = [];
for (const path of ${JSON.stringify(paths)}) {
  try { await read_file(path); seen.push('read ' + path); } catch (e) { seen.push('refused ' + path); }
}
const listed = JSON.stringify([await list_dir('.'), await search_files('**/*'), await search_content('PRIVATE|token|password|secret')]);
try { await write_file('.ssh/authorized_keys', 'ssh-ed25519 AAAA attacker\\n'); seen.push('wrote'); } catch { seen.push('write refused'); }
await write_file('results.txt', seen.join('\\n') + '\\n' + listed + '\\n');
await submit_result('looked around', ['results.txt']);
`;
    writeFileSync(join(project.base, 'look.js'), program);
    const run = await project.run(['spawn', '--code', join(project.base, 'look.js'), 'look around', '--json']);
    expect(run.code, run.stderr).toBe(0);
    const id = (resultOf(run).agent as { id: string }).id;
    const accepted = await project.run(['accept', id]);
    expect(accepted.code, accepted.stderr).toBe(0);
    const [...lines] = readFileSync(join(project.root, 'results.txt'), 'utf8').trim().split('\n');
    const listed = lines.pop()!;
    expect(lines).toEqual([...paths.map((path) => `refused ${path}`), 'write refused']);
    for (const word of [
      '.ssh',
      '.aws',
      '.gnupg',
      '.config/gh',
      'gcloud',
      '.docker/config.json',
      '.kube',
      '.netrc',
      '.npmrc',
      '.pypirc',
      'id_rsa',
      'PRIVATE',
      'gho_x',
    ])
      expect(listed).not.toContain(word);
    expect(existsSync(join(project.root, '.ssh/authorized_keys'))).toBe(false);

    const log = await project.run(['log', id, '--no-pager'], { env: { COLUMNS: '250' } });
    expect(log.code, log.stderr).toBe(0);
    expect(log.stdout).toContain('constraint: ".ssh/id_ed25519" is excluded from reading by ".ssh/"');
    expect(log.stdout).toContain('constraint: ".config/gh/hosts.yml" is excluded from reading by "**/.config/gh/"');
    expect(log.stdout).toContain('constraint: "deploy/id_rsa" is excluded from reading by "id_rsa*"');
    expect(log.stdout).toContain('constraint: ".ssh/authorized_keys" is excluded from writing by ".ssh/"');
  });
});

describe('a home folder is no project', () => {
  it('`cairn spawn` in the home folder (not a git repository) is refused before anything is imported or run', async () => {
    base = mkdtempSync(join(tmpdir(), 'cairn-home-'));
    const home = join(base, 'alice');
    for (const [path, content] of Object.entries({ ...SECRETS, 'notes.txt': 'n\n' })) {
      mkdirSync(dirname(join(home, path)), { recursive: true });
      writeFileSync(join(home, path), content);
    }
    writeFileSync(join(base, 'prog.js'), "await read_file('.ssh/id_ed25519');\nawait submit_result('x', []);\n");
    const env = { HOME: home, CAIRN_HOME: join(base, 'cairn-home') };
    const run = await runCairn(['spawn', '--code', join(base, 'prog.js'), 'read keys'], { cwd: home, home: env.CAIRN_HOME, env });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`error: ${home} cannot be a project: it is your home folder, where SSH keys, credentials and tokens sit`);
    expect(run.stderr).toContain("hint: run Cairn in a project's own folder");
    expect(existsSync(join(home, '.agentfs'))).toBe(false);
    // a folder in the home folder is still a project
    const sub = join(home, 'code', 'app');
    mkdirSync(sub, { recursive: true });
    const inSub = await runCairn(['queue', 'a task', '--json'], { cwd: sub, home: env.CAIRN_HOME, env });
    expect(inSub.code, inSub.stderr).toBe(0);
    // a git repository in the home folder does not make it a project for the folders below it
    mkdirSync(join(home, '.git'));
    const other = join(home, 'scratch');
    mkdirSync(other);
    const below = await runCairn(['spawn', '--code', join(base, 'prog.js'), 'read keys'], { cwd: other, home: env.CAIRN_HOME, env });
    expect(below.code).toBe(1);
    expect(below.stderr).toContain(`error: ${home} cannot be a project`);
    // nor is the root of the file system, or a folder holding the home folder
    const root = await runCairn(['ls', '--project', '/'], { cwd: home, home: env.CAIRN_HOME, env });
    expect(root.stderr).toContain('error: / cannot be a project: it is the root of the file system');
    const above = await runCairn(['ls', '--project', base], { cwd: home, home: env.CAIRN_HOME, env });
    expect(above.stderr).toContain(`error: ${base} cannot be a project: it holds your home folder ${home}`);
  });
});
