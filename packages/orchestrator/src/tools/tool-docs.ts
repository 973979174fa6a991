/** One parameter of a tool function. */
export interface ToolParam {
  name: string;
  type: 'string' | 'string[]';
  /** Present when the parameter may be left out, with the value it then takes. */
  default?: string;
}

/** A tool function as programs see it: the same name and meaning in JavaScript and Python. */
export interface ToolDoc {
  name: string;
  params: readonly ToolParam[];
  returns: { js: string; py: string };
  doc: string;
}

/** The tool functions, the only things an agent's program can do. */
export const TOOLS: readonly ToolDoc[] = [
  {
    name: 'read_file',
    params: [{ name: 'path', type: 'string' }],
    returns: { js: 'string', py: 'str' },
    doc: 'The UTF-8 text of a project file.',
  },
  {
    name: 'write_file',
    params: [
      { name: 'path', type: 'string' },
      { name: 'content', type: 'string' },
    ],
    returns: { js: 'true', py: 'bool' },
    doc: 'Creates or replaces a file (its folders are made as needed).',
  },
  {
    name: 'delete_file',
    params: [{ name: 'path', type: 'string' }],
    returns: { js: 'true', py: 'bool' },
    doc: 'Deletes a file (or a folder with everything in it).',
  },
  {
    name: 'move_file',
    params: [
      { name: 'source', type: 'string' },
      { name: 'target', type: 'string' },
    ],
    returns: { js: 'true', py: 'bool' },
    doc: 'Moves or renames a file (or folder); target is the full new path.',
  },
  {
    name: 'list_dir',
    params: [{ name: 'path', type: 'string', default: "'.'" }],
    returns: { js: 'string[]', py: 'list[str]' },
    doc: 'Names in a folder; folder names end with "/".',
  },
  {
    name: 'file_exists',
    params: [{ name: 'path', type: 'string' }],
    returns: { js: 'boolean', py: 'bool' },
    doc: 'True when a file or folder exists at path.',
  },
  {
    name: 'search_files',
    params: [{ name: 'glob', type: 'string' }],
    returns: { js: 'string[]', py: 'list[str]' },
    doc: 'Project paths matching a glob such as "src/**/*.ts", sorted, at most 1000.',
  },
  {
    name: 'search_content',
    params: [
      { name: 'pattern', type: 'string' },
      { name: 'path', type: 'string', default: "'.'" },
    ],
    returns: { js: '{ path: string; line: number; text: string }[]', py: 'list[dict]' },
    doc: 'Lines matching a regular expression (RE2 syntax) in the files under path, at most 500; each has path, line (1-based) and text.',
  },
  {
    name: 'get_file_tree',
    params: [],
    returns: { js: 'string', py: 'str' },
    doc: 'The project as an indented tree of names (ignored files left out).',
  },
  {
    name: 'get_task',
    params: [],
    returns: { js: 'string', py: 'str' },
    doc: 'The task this program must carry out (with any reviewer feedback).',
  },
  {
    name: 'ask_llm',
    params: [
      { name: 'prompt', type: 'string' },
      { name: 'context', type: 'string', default: "''" },
    ],
    returns: { js: 'string', py: 'str' },
    doc: "A language model's answer to a prompt, with optional context (for example a file's text).",
  },
  {
    name: 'log',
    params: [{ name: 'message', type: 'string' }],
    returns: { js: 'true', py: 'bool' },
    doc: "Writes a line to the agent's log.",
  },
  {
    name: 'submit_result',
    params: [
      { name: 'summary', type: 'string' },
      { name: 'changed_files', type: 'string[]' },
    ],
    returns: { js: 'true', py: 'bool' },
    doc: 'Ends the work: a one-line summary and the paths you changed, for the reviewer.',
  },
];

/** The names of the tool functions. */
/** The two tool functions only a reviewer agent may use (any other program gets an error from them). */
export const REVIEW_TOOLS: readonly ToolDoc[] = [
  {
    name: 'get_proposal',
    params: [],
    returns: { js: 'object', py: 'dict' },
    doc: 'Reviewers only: the proposal under review, { agent, task, summary, changes: [{ path, status }], diff, files: [{ path, status, before, after }] }.',
  },
  {
    name: 'decide',
    params: [
      { name: 'decision', type: 'string' },
      { name: 'note', type: 'string', default: "''" },
    ],
    returns: { js: 'true', py: 'bool' },
    doc: "Reviewers only, once: 'do:merge', 'defer:<reason>', 'delegate:<actor>', 'do:reply:<branch>' (the note is the feedback), 'do:custom:<what>' or 'delete:<reason>'.",
  },
];

/** What a reviewer's program is told about: reading, asking, logging, and its own two functions. */
const READ_ONLY = new Set([
  'read_file',
  'list_dir',
  'file_exists',
  'search_files',
  'search_content',
  'get_file_tree',
  'get_task',
  'ask_llm',
  'log',
]);

export const TOOL_NAMES: readonly string[] = TOOLS.map((tool) => tool.name);

/** Typed declarations of every tool function, each with its one-line doc: TypeScript for JavaScript programs, stubs for Python. */
export function renderToolDeclarations(lang: 'js' | 'py', reviewer = false): string {
  const tools = reviewer ? [...TOOLS.filter((tool) => READ_ONLY.has(tool.name)), ...REVIEW_TOOLS] : TOOLS;
  return tools.map((tool) => (lang === 'js' ? declareJs(tool) : declarePy(tool))).join('\n');
}

function declareJs(tool: ToolDoc): string {
  const params = tool.params.map((p) => `${p.name}${p.default === undefined ? '' : '?'}: ${p.type}`).join(', ');
  return `/** ${tool.doc} */\ndeclare function ${tool.name}(${params}): Promise<${tool.returns.js}>;`;
}

function declarePy(tool: ToolDoc): string {
  const params = tool.params
    .map((p) => `${p.name}: ${p.type === 'string' ? 'str' : 'list[str]'}${p.default === undefined ? '' : ` = ${p.default}`}`)
    .join(', ');
  return `def ${tool.name}(${params}) -> ${tool.returns.py}:\n    """${tool.doc}"""`;
}
