import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createModelClient } from '@cairn/model';
import { type AgentInfo, CairnError, openProject, type Project, type SpawnOptions } from '@cairn/orchestrator';
import type { CommandContext } from '../context.js';
import type { Output } from '../output.js';
import { renderAccept, renderUndo } from '../render/accept.js';
import { renderAgentTable } from '../render/agents.js';
import { changedFilesInWords } from '../render/changed-files.js';
import { paintDiff } from '../render/diff.js';
import { renderJournal } from '../render/journal.js';

/** The sample project the tour runs on. */
const SAMPLE: Record<string, string> = {
  'README.md': '# hello-cairn\n\nA tiny project for the Cairn tour.\n',
  'package.json': '{\n  "name": "hello-cairn",\n  "type": "module",\n  "private": true\n}\n',
  '.gitignore': 'node_modules/\n*.log\n',
  '.env': 'API_TOKEN=not-for-agents\n',
  '.github/workflows/ci.yml': 'on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: npm test\n',
  'src/greet.js': "export function greet(name) {\n  return 'Hello, ' + name + '!';\n}\n",
  'src/math.js': 'export function add(a, b) {\n  return a + b;\n}\n\nexport function sub(a, b) {\n  return a - b;\n}\n',
  'src/app.js':
    "import { greet } from './greet.js';\nimport { add, sub } from './math.js';\n\nvar total = add(2, 3);\nvar left = sub(total, 1);\nconsole.log(greet('Cairn'), total, left);\n",
  'src/util/format.js':
    "export function pad(text, width) {\n  var out = String(text);\n  while (out.length < width) out = ' ' + out;\n  return out;\n}\n",
};

const EXAMPLES = ['use-const.js', 'add-docs.js', 'rename.py', 'touch-secrets.js'];

/**
 * `cairn demo`: the tour. In a temp folder it makes a sample project and walks through the real flows —
 * agents running example programs, their diffs, a human edit merged three ways, a conflict, a reject and a
 * restore, an accept undone, governance refusing what it must, a replay — printing each step as the command
 * a user would type, followed by what it prints. No model is needed; if an Ollama server answers, one
 * model-written agent joins in.
 */
export async function demoCommand(ctx: CommandContext, flags: { keep?: boolean }): Promise<number> {
  const { out } = ctx;
  const base = mkdtempSync(join(tmpdir(), 'cairn-demo-'));
  const root = join(base, 'hello-cairn');
  const home = join(base, 'cairn-home');
  writeSample(root);
  const project = openProject(root, { cairnHome: home });
  const tour = new Tour(out, project, root);
  try {
    await tour.run();
    out.result(true, { project: root, agents: await project.agents() });
    return 0;
  } finally {
    await project.close();
    if (flags.keep === true) out.line(out.paint.dim(`\nthe sample project stays in ${root} (CAIRN_HOME=${home})`));
    else rmSync(base, { recursive: true, force: true });
  }
}

function writeSample(root: string): void {
  for (const [path, content] of Object.entries(SAMPLE)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  // beside the bundle when Cairn is installed, else in the repository's examples/
  const places = [new URL('examples/', import.meta.url), new URL('../../../../examples/', import.meta.url)].map((url) =>
    fileURLToPath(url),
  );
  const examples = places.find((place) => existsSync(place));
  if (examples === undefined) throw new CairnError('CAIRN_PROJECT', `the example programs are missing (looked in ${places.join(' and ')})`);
  mkdirSync(join(root, 'examples'), { recursive: true });
  for (const name of EXAMPLES) cpSync(join(examples, name), join(root, 'examples', name));
}

class Tour {
  constructor(
    private readonly out: Output,
    private readonly project: Project,
    private readonly root: string,
  ) {}

  async run(): Promise<void> {
    const { out } = this;
    const p = out.paint;
    this.say(`A sample project in ${this.root}: five source files, a .env and a CI workflow.`);
    this.say('No set-up: without a daemon every command works on the databases directly (`cairn up` adds one that watches your edits).');
    await this.project.sync();

    const consts = await this.spawn('examples/use-const.js', 'use const and let instead of var');
    const docs = await this.spawn('examples/add-docs.js', 'document the exported functions');
    const rename = await this.spawn('examples/rename.py', 'rename greet to welcome');
    this.step('cairn ls', renderAgentTable(await this.project.agents(), p));

    this.step(`cairn diff ${docs.id}`, paintDiff(await this.project.diff(docs.id), p).split('\n'));
    this.say('Meanwhile you edit src/math.js yourself: a new function at the end.');
    this.edit('src/math.js', (text) => text + '\nexport function mul(a, b) {\n  return a * b;\n}\n');
    this.step(`cairn accept ${docs.id}`, renderAccept(await this.project.accept(docs.id), p));
    this.show('src/math.js');

    this.say('You also change the line of src/greet.js that the rename touches.');
    this.edit('src/greet.js', (text) =>
      text.replace('export function greet(name) {', "export function greet(name, mark = '!') {").replace("+ '!'", '+ mark'),
    );
    this.step(`cairn accept ${rename.id}`, renderAccept(await this.project.accept(rename.id), p));
    this.step(
      `cairn reject ${rename.id} --reason "clashes with my edit"`,
      this.agentLine(await this.project.reject(rename.id, 'clashes with my edit')),
    );
    this.step(`cairn restore ${rename.id}`, this.agentLine(await this.project.restore(rename.id)));

    this.step(`cairn diff ${consts.id}`, paintDiff(await this.project.diff(consts.id), p).split('\n'));
    this.step(`cairn accept ${consts.id}`, renderAccept(await this.project.accept(consts.id), p));
    this.step(`cairn undo ${consts.id}`, renderUndo(await this.project.undo(consts.id), p));

    const sneaky = await this.spawn('examples/touch-secrets.js', 'try the protected paths');
    this.step(`cairn diff ${sneaky.id}`, paintDiff(await this.project.diff(sneaky.id), p).split('\n'));
    const journal = await this.project.journal(sneaky.id);
    this.step(
      `cairn log ${sneaky.id}`,
      renderJournal({ ...journal, rows: journal.rows.filter((r) => r.kind === 'denied' || r.effect?.startsWith('fs.write')) }, p),
    );
    this.step(`cairn reject ${sneaky.id}`, this.agentLine(await this.project.reject(sneaky.id, 'a demonstration')));

    const replay = await this.project.replay(docs.id);
    this.step(
      `cairn replay ${docs.id}`,
      replay.ok
        ? `${p.green('reproduced')}: ${replay.runs} run, ${replay.entries} journal entries equal, without touching the project`
        : `${p.red('not reproduced')}: ${replay.divergence?.reason ?? ''}`,
    );
    if (!replay.ok) throw new CairnError('CAIRN_INTERNAL', `the tour's replay did not reproduce: ${replay.divergence?.reason ?? ''}`);

    await this.modelAgent();
    this.step('cairn ls', renderAgentTable(await this.project.agents(), p));
    this.say(
      `That is the loop: spawn, diff, accept (or reject), with every tool call governed and journaled. Try it on your project: \`cairn up\`, then \`cairn spawn --code examples/use-const.js "…"\`.`,
    );
  }

  /** One model-written agent, only when an Ollama server answers. */
  private async modelAgent(): Promise<void> {
    const p = this.out.paint;
    const client = createModelClient({ timeoutMs: 2000 });
    const listed = await client.listModels();
    if (!listed.ok) {
      this.say(
        `No Ollama server answers at ${client.host}, so no model-written agent this time. To add one: start Ollama (\`ollama serve\`), pull a model (\`ollama pull qwen2.5-coder:7b\`), then \`cairn spawn "add a square function to src/math.js"\`.`,
      );
      return;
    }
    const model = listed.models.find((m) => m.startsWith('qwen2.5-coder')) ?? listed.models[0];
    if (model === undefined) {
      this.say(`Ollama answers at ${client.host} but has no model: \`ollama pull qwen2.5-coder:7b\` adds one.`);
      return;
    }
    const agent = await this.spawnWith(
      `cairn spawn --model ${model} "add a square function to src/math.js"`,
      'add a square function to src/math.js',
      { model },
    );
    if (agent.state === 'reviewing') this.step(`cairn diff ${agent.id}`, paintDiff(await this.project.diff(agent.id), p).split('\n'));
  }

  private async spawn(program: string, task: string): Promise<AgentInfo> {
    const code = readFileSync(join(this.root, program), 'utf8');
    return this.spawnWith(`cairn spawn --code ${program} "${task}"`, task, { code, lang: program.endsWith('.py') ? 'py' : 'js' });
  }

  private async spawnWith(command: string, task: string, options: SpawnOptions): Promise<AgentInfo> {
    const spawned = await this.project.spawn(task, options);
    const done = await this.project.wait(spawned.id);
    const p = this.out.paint;
    const lines = [`spawned ${p.bold(done.id)}: ${task}`];
    if (done.state === 'reviewing')
      lines.push(`${p.bold(done.id)} is ${p.yellow('reviewing')}: ${done.summary ?? ''} (${changedFilesInWords(done.changes ?? [])})`);
    else lines.push(`${p.bold(done.id)} ${p.red(done.state)}: ${done.reason ?? ''}`);
    this.step(command, lines);
    return done;
  }

  private agentLine(agent: AgentInfo): string {
    return `${this.out.paint.bold(agent.id)} is ${agent.state}${agent.reason === undefined ? '' : ` (${agent.reason})`}`;
  }

  private edit(path: string, change: (text: string) => string): void {
    const full = join(this.root, path);
    writeFileSync(full, change(readFileSync(full, 'utf8')));
  }

  private show(path: string): void {
    this.step(`cat ${path}`, readFileSync(join(this.root, path), 'utf8').trimEnd().split('\n'));
  }

  private step(command: string, output: string | readonly string[]): void {
    const { out } = this;
    out.line('');
    out.line(out.paint.bold(out.paint.cyan(`$ ${command}`)));
    for (const line of typeof output === 'string' ? [output] : output) out.line(line);
  }

  private say(text: string): void {
    this.out.line('');
    this.out.line(this.out.paint.magenta(`# ${text}`));
  }
}
