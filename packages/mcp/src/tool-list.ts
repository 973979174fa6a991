import { authorTools, type ToolDescription, type ToolParam } from '@cairn/orchestrator';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/** A JSON schema of an object's properties. */
type Properties = Record<string, { type: string; items?: { type: string }; description?: string }>;

const ENVIRONMENT = { type: 'string', description: 'The id environment_open returned.' };

/** The tools of the table that only read: MCP clients may call them without asking. */
const READ_ONLY = new Set(['read_file', 'list_dir', 'file_exists', 'search_files', 'search_content', 'get_file_tree', 'get_task', 'log']);

/**
 * Cairn's own tools around the table's: opening an environment, running a command in it, waiting for a long
 * call, its diff, and the list of environments.
 */
const SESSION_TOOLS: Tool[] = [
  {
    name: 'environment_open',
    description:
      'Opens an environment: a Cairn agent with a copy-on-write view of the project as it is now (uncommitted edits included). Every other tool acts in one, by its id. Give `environment` instead of `task` to continue one you opened before. Your changes stay in the environment until you call submit_result and the developer accepts them.',
    inputSchema: objectOf(
      {
        task: { type: 'string', description: 'What you set out to do, in one line (the developer reviews it).' },
        environment: ENVIRONMENT,
      },
      [],
    ),
  },
  {
    name: 'run_command',
    description:
      "Runs a shell command (sh -c) in the environment's sealed view: the project with your changes so far, the network kept, secrets (.env, ~/.ssh) hidden. Whatever it writes lands in the environment as governed changes (writes under .git/ and other protected paths are refused). Returns its exit code, the end of its output, and the paths it changed.",
    inputSchema: objectOf(
      {
        environment: ENVIRONMENT,
        command: { type: 'string', description: 'The command line, run with sh -c from the project root (or cwd).' },
        cwd: { type: 'string', description: 'Project-relative folder to start in.' },
        timeout_seconds: { type: 'number', description: 'Kill it (and all it started) after this long; default 600.' },
      },
      ['environment', 'command'],
    ),
  },
  {
    name: 'wait',
    description:
      'Waits for a call still running in the environment (a long command or check answered "still running") and returns its result.',
    inputSchema: objectOf({ environment: ENVIRONMENT }, ['environment']),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'show_diff',
    description: "The environment's changes so far as a unified diff against the working tree (or only for the given paths).",
    inputSchema: objectOf({ environment: ENVIRONMENT, paths: { type: 'array', items: { type: 'string' } } }, ['environment']),
    annotations: { readOnlyHint: true },
  },
  {
    name: 'environment_list',
    description: 'The environments opened through MCP in this project, with their state (running, reviewing, accepted…) and task.',
    inputSchema: objectOf({}, []),
    annotations: { readOnlyHint: true },
  },
];

/** The tools the server offers: Cairn's session tools, then the table's author tools, each taking an environment. */
export function toolList(checks: readonly string[]): Tool[] {
  return [...SESSION_TOOLS, ...authorTools(checks).map(toolOf)];
}

/** The session tools' names. */
export const SESSION_TOOL_NAMES: ReadonlySet<string> = new Set(SESSION_TOOLS.map((tool) => tool.name));

function toolOf(tool: ToolDescription): Tool {
  const properties: Properties = { environment: ENVIRONMENT };
  for (const param of tool.params) properties[param.name] = schemaOf(param);
  // submit_result's changed_files is for the reviewer's eye: a client may leave it to the diff
  const optional = (param: ToolParam) => param.default !== undefined || (tool.name === 'submit_result' && param.name === 'changed_files');
  const required = ['environment', ...tool.params.filter((param) => !optional(param)).map((param) => param.name)];
  const description =
    tool.name === 'submit_result'
      ? `${tool.doc} The environment ends and its changes go to the developer's review.`
      : tool.name === 'log'
        ? "Writes a line to the environment's log."
        : tool.doc;
  return {
    name: tool.name,
    description,
    inputSchema: objectOf(properties, required),
    ...(READ_ONLY.has(tool.name) ? { annotations: { readOnlyHint: true } } : {}),
  };
}

function schemaOf(param: ToolParam): Properties[string] {
  if (param.type === 'string[]') return { type: 'array', items: { type: 'string' } };
  return { type: param.type };
}

function objectOf(properties: Properties, required: string[]): Tool['inputSchema'] {
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Checks a call's arguments against its tool's schema: the arguments in the table's order, or what is wrong. */
export function argumentsOf(
  tool: Tool,
  input: Record<string, unknown> | undefined,
): { args: Record<string, unknown> } | { problem: string } {
  const args = input ?? {};
  const properties = (tool.inputSchema.properties ?? {}) as Properties;
  for (const name of Object.keys(args))
    if (!(name in properties))
      return { problem: `${tool.name} has no argument "${name}" (it takes ${Object.keys(properties).join(', ') || 'none'})` };
  for (const name of tool.inputSchema.required ?? [])
    if (args[name] === undefined) return { problem: `${tool.name} needs the argument "${name}"` };
  for (const [name, value] of Object.entries(args)) {
    const want = properties[name]!;
    const fits =
      want.type === 'array'
        ? Array.isArray(value) && value.every((item) => typeof item === 'string')
        : want.type === 'number'
          ? typeof value === 'number' && Number.isFinite(value)
          : typeof value === want.type;
    if (!fits) return { problem: `${tool.name}: ${name} must be ${want.type === 'array' ? 'a list of strings' : `a ${want.type}`}` };
  }
  return { args };
}

/** The table tool's arguments in its parameter order (what its one-line program passes), defaults left to the tool. */
export function positional(tool: ToolDescription, args: Record<string, unknown>): unknown[] {
  const values = tool.params.map((param) => args[param.name]);
  while (values.length > 0 && values.at(-1) === undefined) values.pop();
  return values;
}
