import { CAIRN_VERSION } from '@cairn/api/version';
import { Command, CommanderError, Option } from 'commander';
import { wordsAfterDash } from './accept-arguments.js';
import { AGENT_WRITES, commandPath, commands, type Load, PROJECT_USE, READS_ONLY } from './command-table.js';
import type { CommonOptions } from './context.js';
import { setReadsOnly, watchOutputStreams } from './output-loss.js';
import type { ProjectUse } from './project-root.js';

/** Options every command takes, declared once. */
function withCommon(command: Command): Command {
  return command
    .option(
      '--project <dir>',
      'the project folder (default: the nearest one upwards holding .agentfs/ without leaving the git repository, else its top, else the current folder)',
    )
    .option('--json', 'print NDJSON (events, then the result) and nothing else on stdout')
    .option('--debug', 'print stacks with errors');
}

/** Options of `spawn` and `queue`, declared once. */
function withSpawnOptions(command: Command): Command {
  return command
    .argument('<task...>', 'what the agent should do')
    .option('--code <file>', 'run your own program (.js or .py) instead of asking a model')
    .addOption(new Option('--lang <lang>', 'language of the program').choices(['js', 'py']))
    .option(
      '--model <name>',
      'the model that writes the program (default qwen2.5-coder:7b through Ollama; openai/NAME for an OpenAI-compatible server)',
    )
    .option('--context-tokens <n>', 'the largest window the model is asked for (default 16384)')
    .option('--max-output-tokens <n>', 'the longest program the model may write, in tokens (default 4096)')
    .option('--temperature <t>', 'sampling temperature, 0 to 2 (default 0.2)')
    .option('--seed <n>', 'sampling seed sent with every model request')
    .option('--model-timeout-ms <ms>', 'how long one model answer may take')
    .option('--wait', 'follow the agent until it submits or fails')
    .option('--wall-ms <ms>', 'wall-clock limit of one run')
    .option('--cpu-ms <ms>', 'CPU limit of one run')
    .option('--memory-mb <mb>', 'heap limit of one run')
    .option('--tokens <n>', 'model tokens the agent may spend')
    .option('--bytes <n>', 'bytes the agent may write')
    .option('--calls <n>', 'tool calls the agent may make')
    .option('--repairs <n>', 'repair rounds the model gets')
    .option(
      '--scope <path>',
      'only let the agent write under this path, from the current folder (repeatable)',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option('--exec', 'the words after -- are a program (an agent CLI) to run in a writable sealed view: cairn spawn --exec -- claude')
    .option(...execEnvOption)
    .option(...execHomeOption);
}

const repeat = (value: string, previous: string[] = []) => [...previous, value];
const execEnvOption = [
  '--env <name>',
  'with --exec: pass this environment variable to the program (repeatable; no other is passed)',
  repeat,
] as const;
const execHomeOption = [
  '--home <entry>',
  'with --exec: bind this entry of your home folder (e.g. .claude) read-only into the view (repeatable)',
  repeat,
] as const;

/** Builds the program: every command, its options as data, help generated from them. */
function buildProgram(run: (load: Load, options: CommonOptions, ...args: unknown[]) => Promise<void>, argv: readonly string[]): Command {
  const program = new Command('cairn')
    .description('Run many coding agents on one project; nothing reaches your files until you accept it.')
    .version(CAIRN_VERSION, '-v, --version')
    .showHelpAfterError('(add --help for usage)')
    .showSuggestionAfterError(true)
    // a subcommand's options are its own (`cairn worker enroll --name N`), not its parent's
    .enablePositionalOptions();

  withCommon(
    program
      .command('up')
      .description("start the project's daemon: import, watch, serve, run the queue")
      .option('--detach', 'run in the background (pid and log files)')
      .option('--queue <url>', 'feed queued agents to workers through this Redis queue (redis://HOST:PORT) instead of the local pool')
      .option('--serve-workers <addr>', 'serve snapshots to workers and take their results on HOST:PORT (with --queue)')
      .option('--worker-wait-ms <ms>', 'how long a queued agent waits, no trusted worker connected, before that is said (default 60000)')
      .option('--without-workers <then>', 'then: wait (leave it queued, the default) or run-here (run it in this daemon)'),
  ).action((flags) => run(commands.up, flags, flags));
  withCommon(program.command('down').description("stop the project's daemon (running agents finish first)")).action((flags) =>
    run(commands.down, flags),
  );
  withCommon(
    withSpawnOptions(program.command('spawn').description('create an agent and start it as soon as a slot is free, ahead of queued ones')),
  ).action((task, flags) =>
    flags.exec === true ? run(commands.execSpawn, flags, task, flags) : run(commands.spawn, flags, task, flags, 'spawn'),
  );
  withCommon(
    program
      .command('run')
      .description("run a program (an agent CLI) again in a reviewing agent's writable view, over its proposal so far")
      .argument('<id>', 'the agent')
      .argument('[command...]', 'the program and its arguments, after --')
      .option('--sync', "while the agent's command runs (in another terminal): take what it wrote so far into its proposal now")
      .option(...execEnvOption)
      .option(...execHomeOption),
  ).action((id, command, flags) => run(commands.runAgain, flags, id, command, flags));
  withCommon(withSpawnOptions(program.command('queue').description('create an agent at the back of the queue'))).action((task, flags) =>
    run(commands.spawn, flags, task, flags, 'queue'),
  );
  withCommon(
    program
      .command('list-agents')
      .alias('ls')
      .description('one line per agent: id, state, age, changed files, task')
      .option('--state <states>', 'only agents in these states (comma-separated)'),
  ).action((flags) => run(commands.list, flags, flags));
  withCommon(
    program
      .command('status')
      .description('an agent in full: state, task, summary, changes, failure, recent events; without an id, the project')
      .argument('[id]', 'the agent'),
  ).action((id, flags) => run(commands.status, flags, id));
  withCommon(
    program
      .command('diff')
      .description("the agent's proposal as a git-style diff")
      .argument('<id>', 'the agent')
      .argument('[paths...]', 'only these paths (from the current folder, as git reads them)')
      .option('--no-pager', 'never page the output'),
  ).action((id, paths, flags) => run(commands.diff, flags, id, paths, flags));
  const checks = program.command('checks').description('checks: tests and linters run on a proposal in a sealed view of the project');
  withCommon(
    checks
      .command('show', { isDefault: true })
      .description("check results per agent and per check, or a check's output (the default)")
      .argument('[id]', 'the agent')
      .argument('[name]', 'the check whose output to show')
      .option('--run', 'run the checks (or the named one) now')
      .option('--no-pager', 'never page the output'),
  ).action((id, name, flags) => run(commands.checks, flags, id, name, flags));
  withCommon(
    checks
      .command('suggest')
      .description("propose checks from the project's scripts (package.json, pytest, cargo, go, make); writes them when confirmed")
      .option('--yes', 'write them to .cairn/config.json without asking'),
  ).action((flags) => run(commands.checksSuggest, flags, flags));
  withCommon(
    program
      .command('log')
      .description("the agent's journal as a table; verifies its hash chain")
      .argument('<id>', 'the agent')
      .option('--no-pager', 'never page the output'),
  ).action((id, flags) => run(commands.log, flags, id, flags));
  withCommon(
    program
      .command('accept')
      .description('merge the proposal (or some paths) into your working tree, three-way; several agents in turn')
      .argument('<id>', 'the agent')
      .argument(
        '[more...]',
        'more agents to accept in turn (cairn accept A B C), or paths of the one agent (only these, from the current folder as git reads them)',
      )
      .option('--force', "take the agent's side of conflicts, and accept without waiting for its automatic checks or though they failed")
      .option('--partial', 'apply what merges cleanly even when other paths conflict')
      .option('--keep-going', 'with several agents: go on with the next when one does not go in')
      .addHelpText(
        'after',
        `
Several agents are accepted in turn, through the project's one accept queue (the daemon's, shared with other
terminals, Neovim and the inbox): each is merged onto the working tree the one before left, once its automatic
checks passed there. An accept whose checks are stale or still running waits for them, saying so on stderr.
The first that does not go in (a conflict, checks that did not pass, an error) stops the rest, which are left
as they are; --keep-going goes on with them.

Which words are agents: the first always; each later one that names an agent of the project; any other is a
path, and paths go with one agent only. A word that names both an agent and an existing path is refused: put
paths after --, as in \`cairn accept a7f3 -- src/b2c4\`.

Exit: 0 when every accept went in; 1 when one did not (which went in, which stopped and why, and which were
left queued are printed); 2 for a usage error.`,
      ),
  ).action((id, more, flags) => run(commands.accept, flags, id, more, flags, wordsAfterDash(argv)));
  withCommon(
    program
      .command('undo')
      .description("undo the agent's accepts; the changes become a proposal again")
      .argument('<id>', 'the agent')
      .option('--force', 'restore files you changed since the accept too'),
  ).action((id, flags) => run(commands.undo, flags, id, flags));
  withCommon(
    program
      .command('reject')
      .description('discard the proposal (kept in the ledger until collected)')
      .argument('<id>', 'the agent')
      .option('--reason <text>', 'why'),
  ).action((id, flags) => run(commands.reject, flags, id, flags));
  withCommon(program.command('restore').description('bring a rejected agent back').argument('<id>', 'the agent')).action((id, flags) =>
    run(commands.restore, flags, id),
  );
  withCommon(
    program
      .command('replay')
      .description('re-run the agent from its journal; exit 0 only if it is reproduced')
      .argument('<id>', 'the agent'),
  ).action((id, flags) => run(commands.replay, flags, id));
  withCommon(program.command('events').description("follow the daemon's event stream").option('--agent <id>', 'only this agent')).action(
    (flags) => run(commands.events, flags, flags),
  );
  withCommon(
    program
      .command('gc')
      .description('delete rejected overlays for good')
      .option('--older-than <age>', 'only those rejected at least this long ago (30m, 12h, 7d)', '7d'),
  ).action((flags) => run(commands.gc, flags, flags));
  const inbox = program.command('inbox').description('the review inbox: one thread per proposal; decide in the file, then process');
  withCommon(
    inbox
      .command('list', { isDefault: true })
      .description('the threads, pending and decided (the default)')
      .option('--all', 'also list processed threads (done/)'),
  ).action((flags) => run(commands.inbox, flags, flags));
  withCommon(inbox.command('process').description('carry out every decided thread under the protocol, each decision once')).action(
    (flags) => run(commands.inboxProcess, flags),
  );
  withCommon(
    inbox.command('log').description('one day of the audit log').option('--date <day>', 'the day, YYYY-MM-DD (default today, UTC)'),
  ).action((flags) => run(commands.inboxLog, flags, flags));
  withCommon(
    program
      .command('review')
      .description('start a reviewer agent on a proposal: it may only read and decide')
      .argument('<id>', 'the agent whose proposal is reviewed')
      .option('--as <name>', 'a reviewer named in .cairn/config.json (its program or model, and whether it may approve)')
      .option('--code <file>', 'the reviewer program (.js or .py); it ends with decide(decision, note)')
      .addOption(new Option('--lang <lang>', 'language of the program').choices(['js', 'py']))
      .option('--model <name>', 'the model that writes the reviewer program')
      .option('--wait', 'with a daemon, wait for the decision'),
  ).action((id, flags) => run(commands.review, flags, id, flags));
  withCommon(
    program
      .command('repair')
      .description('rebuild the agent records of a damaged or lost bin.db from the agent databases (keeps the damaged file)'),
  ).action((flags) => run(commands.repair, flags));
  withCommon(
    program
      .command('models')
      .description(
        'the models the configured servers offer (Ollama, and the OpenAI-compatible server OPENAI_BASE_URL names), with their context lengths',
      ),
  ).action((flags) => run(commands.models, flags));
  const worker = withCommon(
    program
      .command('worker')
      .description('run agents for a coordinator on this machine: take jobs from its queue, return verified results')
      .option('--queue <url>', "the coordinator's Redis queue, redis://HOST:PORT")
      .option('--coordinator <url>', "the coordinator's endpoint for workers, http://HOST:PORT (as `cairn up --serve-workers` prints it)")
      .option('--token <token>', 'the bearer token the coordinator printed')
      .option('--concurrency <n>', 'agents run at once (default 3)')
      .option('--name <name>', "this worker's name, as enrolled (default: the host name)")
      .option('--grace <seconds>', 'on a stop, how long the running agents may take to finish before they are left (default 120)'),
  ).action((flags) => run(commands.worker, flags, flags));
  withCommon(
    worker
      .command('enroll')
      .description("print this worker's public key, for the coordinator's .cairn/config.json")
      .option('--name <name>', "this worker's name (default: the host name)"),
  ).action((flags) => run(commands.workerEnroll, flags, flags));
  withCommon(
    worker.command('trust').description('clear the untrusted mark a refused result left on a worker').argument('<name>', 'the worker'),
  ).action((name, flags) => run(commands.workerTrust, flags, name));
  const mcp = withCommon(
    program
      .command('mcp')
      .description('serve MCP on stdio: environments for MCP clients (Claude Code, Codex, Gemini CLI, Cursor), each a governed agent'),
  ).action((flags) => run(commands.mcp, flags));
  withCommon(
    mcp
      .command('config')
      .description("print (or --write) an MCP client's configuration for this project's server")
      .argument('<client>', 'claude, codex, gemini or cursor')
      .option('--write', "write it into the client's file (merged with what is there) instead of printing it"),
  ).action((client, flags) => run(commands.mcpConfig, flags, client, flags));
  const air = program.command('air').description('governance: the AIR manifest');
  withCommon(air.command('check').description('validate .cairn/manifest.air.json')).action((flags) => run(commands.airCheck, flags));
  withCommon(
    program
      .command('demo')
      .description('a guided tour on a sample project (no model needed)')
      .option('--keep', 'keep the sample project afterwards'),
  ).action((flags) => run(commands.demo, flags, flags));
  return program;
}

/** Runs the cairn command line; resolves to the exit code (0 ok, 1 failure, 2 usage). */
export async function main(argv: readonly string[]): Promise<number> {
  watchOutputStreams();
  const json = argv.includes('--json');
  let code = 0;
  let usage = '';
  let use: ProjectUse | 'none' = 'open';
  let agentWrites: 'all' | 'named' | undefined;
  const run = async (load: Load, options: CommonOptions, ...args: unknown[]): Promise<void> => {
    const [{ runCommand }, action] = await Promise.all([import('./run-command.js'), load()]);
    const writes = agentWrites === 'named' ? { agent: String(args[0]) } : (agentWrites ?? 'none');
    code = await runCommand(action, use, options, args, writes);
  };
  const nul = argv.find((arg) => arg.includes('\0'));
  if (nul !== undefined) {
    const [{ reportError }, { createOutput }, { UsageError }] = await Promise.all([
      import('./run-command.js'),
      import('./output.js'),
      import('./context.js'),
    ]);
    return reportError(
      createOutput({ json, debug: false }),
      new UsageError(`an argument holds a NUL byte: ${JSON.stringify(nul)}`, 'arguments are text; remove the NUL byte'),
    );
  }
  // the version is asked often (scripts, bug reports): answered before the command tree is built, as git does
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-v')) {
    process.stdout.write(`${CAIRN_VERSION}\n`);
    return 0;
  }
  const program = buildProgram(run, argv);
  program.hook('preAction', (_program, command) => {
    use = PROJECT_USE[commandPath(command)] ?? (READS_ONLY.has(commandPath(command)) ? 'read' : 'open');
    agentWrites = AGENT_WRITES[commandPath(command)];
    setReadsOnly(READS_ONLY.has(commandPath(command)));
  });
  program.exitOverride();
  program.configureOutput({
    writeOut: (text) => process.stdout.write(text),
    writeErr: (text) => {
      if (json) usage += text;
      else process.stderr.write(text);
    },
  });
  for (const command of program.commands) {
    command.exitOverride();
    for (const sub of command.commands) sub.exitOverride();
  }
  try {
    await program.parseAsync([...argv], { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
      if (json)
        (await import('./output.js')).createOutput({ json: true, debug: false }).error(
          'CAIRN_USAGE',
          (usage || error.message)
            .replace(/^error: /, '')
            .split('\n')[0]!
            .trim(),
        );
      return 2;
    }
    const [{ reportError }, { createOutput }] = await Promise.all([import('./run-command.js'), import('./output.js')]);
    return reportError(createOutput({ json, debug: argv.includes('--debug') }), error);
  }
  if (argv.length === 0) {
    program.outputHelp();
    return 0;
  }
  return code;
}
