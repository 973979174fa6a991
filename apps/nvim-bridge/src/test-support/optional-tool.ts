/**
 * The rule for tests that need a program a machine may lack (Neovim, tmux, Redis, bubblewrap): find it, else
 * skip with one line saying what is missing and how to get it — or fail with that same line when the
 * tool's `CAIRN_REQUIRE_<TOOL>` variable is set, as CI sets it, so CI never skips them.
 */
export interface OptionalTool<T> {
  /** The tool as users name it: `nvim`, `Neovim 0.10`, `tmux`. */
  name: string;
  /** How to get it: a command to run, or where to set its path. */
  howToGet: string;
  /** The variable that makes the tool mandatory (`CAIRN_REQUIRE_NVIM`); set to anything but '' or '0'. */
  requiredBy: string;
  /** Looks for the tool: what the tests need of it (a path, a version), or undefined when it is absent. */
  find(): T | undefined;
}

/** The outcome of looking for a tool: found, or missing with the one line that says so. */
export type ToolLookup<T> = { name: string; found: true; tool: T } | { name: string; found: false; line: string };

/** Thrown when a required tool is missing; its message is the same one line a skip prints. */
export class MissingToolError extends Error {
  override readonly name = 'MissingToolError';
  readonly code = 'TEST_TOOL_MISSING';
  constructor(line: string) {
    super(line);
    // The line says it all: a stack would only point here.
    this.stack = line;
  }
}

/** The one line for a missing tool: `missing tmux: apt-get install tmux`. */
export function missingLine(tool: Pick<OptionalTool<unknown>, 'name' | 'howToGet'>): string {
  return `missing ${tool.name}: ${tool.howToGet}`;
}

/** Whether `variable` asks for the tools it names (set, and neither '' nor '0'). */
export function isRequired(variable: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env[variable];
  return value !== undefined && value !== '' && value !== '0';
}

/** Looks for `tool`; when it is missing and required, throws a MissingToolError instead of answering. */
export function lookUpTool<T>(tool: OptionalTool<T>, env: NodeJS.ProcessEnv = process.env): ToolLookup<T> {
  const found = tool.find();
  if (found !== undefined) return { name: tool.name, found: true, tool: found };
  const line = missingLine(tool);
  if (isRequired(tool.requiredBy, env)) throw new MissingToolError(line);
  return { name: tool.name, found: false, line };
}

/**
 * Prints one line per missing tool, once per run (a vitest global setup calls it), so a run that skips tests
 * says why even where the reporter does not list skipped tests, and a run that fails for a tool names them all.
 */
export function reportMissingTools(tools: readonly OptionalTool<unknown>[], env: NodeJS.ProcessEnv = process.env): string[] {
  const lines = tools
    .filter((t) => t.find() === undefined)
    .map(
      (t) =>
        `${missingLine(t)} (${isRequired(t.requiredBy, env) ? `${t.requiredBy} is set: tests that need it fail` : 'tests that need it are skipped'})`,
    );
  for (const line of lines) process.stdout.write(`${line}\n`);
  return lines;
}
