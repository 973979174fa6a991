import type { ChatMessage } from '@cairn/model';

/** What a prompt of that time was built from. */
export interface LegacyPromptInput {
  task: string;
  lang: 'js' | 'py';
  /** The output of `get_file_tree()`. */
  fileTree: string;
  feedback?: string;
  reviewer?: boolean;
  previous?: { program: string; report: string };
}

/** The tool declarations prompts carried then, by language and role. */
const LEGACY_DECLARATIONS: Record<string, string> = {
  jsAuthor:
    '/** The UTF-8 text of a project file. */\ndeclare function read_file(path: string): Promise<string>;\n/** Creates or replaces a file (its folders are made as needed). */\ndeclare function write_file(path: string, content: string): Promise<true>;\n/** Deletes a file (or a folder with everything in it). */\ndeclare function delete_file(path: string): Promise<true>;\n/** Moves or renames a file (or folder); target is the full new path. */\ndeclare function move_file(source: string, target: string): Promise<true>;\n/** Names in a folder; folder names end with "/". */\ndeclare function list_dir(path?: string): Promise<string[]>;\n/** True when a file or folder exists at path. */\ndeclare function file_exists(path: string): Promise<boolean>;\n/** Project paths matching a glob such as "src/**/*.ts", sorted, at most 1000. */\ndeclare function search_files(glob: string): Promise<string[]>;\n/** Lines matching a regular expression (RE2 syntax) in the files under path, at most 500; each has path, line (1-based) and text. */\ndeclare function search_content(pattern: string, path?: string): Promise<{ path: string; line: number; text: string }[]>;\n/** The project as an indented tree of names (ignored files left out). */\ndeclare function get_file_tree(): Promise<string>;\n/** The task this program must carry out (with any reviewer feedback). */\ndeclare function get_task(): Promise<string>;\n/** A language model\'s answer to a prompt, with optional context (for example a file\'s text). */\ndeclare function ask_llm(prompt: string, context?: string): Promise<string>;\n/** Writes a line to the agent\'s log. */\ndeclare function log(message: string): Promise<true>;\n/** Ends the work: a one-line summary and the paths you changed, for the reviewer. */\ndeclare function submit_result(summary: string, changed_files: string[]): Promise<true>;',
  jsReviewer:
    "/** The UTF-8 text of a project file. */\ndeclare function read_file(path: string): Promise<string>;\n/** Names in a folder; folder names end with \"/\". */\ndeclare function list_dir(path?: string): Promise<string[]>;\n/** True when a file or folder exists at path. */\ndeclare function file_exists(path: string): Promise<boolean>;\n/** Project paths matching a glob such as \"src/**/*.ts\", sorted, at most 1000. */\ndeclare function search_files(glob: string): Promise<string[]>;\n/** Lines matching a regular expression (RE2 syntax) in the files under path, at most 500; each has path, line (1-based) and text. */\ndeclare function search_content(pattern: string, path?: string): Promise<{ path: string; line: number; text: string }[]>;\n/** The project as an indented tree of names (ignored files left out). */\ndeclare function get_file_tree(): Promise<string>;\n/** The task this program must carry out (with any reviewer feedback). */\ndeclare function get_task(): Promise<string>;\n/** A language model's answer to a prompt, with optional context (for example a file's text). */\ndeclare function ask_llm(prompt: string, context?: string): Promise<string>;\n/** Writes a line to the agent's log. */\ndeclare function log(message: string): Promise<true>;\n/** Reviewers only: the proposal under review, { agent, task, summary, changes: [{ path, status }], diff, files: [{ path, status, before, after }] }. */\ndeclare function get_proposal(): Promise<object>;\n/** Reviewers only, once: 'do:merge', 'defer:<reason>', 'delegate:<actor>', 'do:reply:<branch>' (the note is the feedback), 'do:custom:<what>' or 'delete:<reason>'. */\ndeclare function decide(decision: string, note?: string): Promise<true>;",
  pyAuthor:
    'def read_file(path: str) -> str:\n    """The UTF-8 text of a project file."""\ndef write_file(path: str, content: str) -> bool:\n    """Creates or replaces a file (its folders are made as needed)."""\ndef delete_file(path: str) -> bool:\n    """Deletes a file (or a folder with everything in it)."""\ndef move_file(source: str, target: str) -> bool:\n    """Moves or renames a file (or folder); target is the full new path."""\ndef list_dir(path: str = \'.\') -> list[str]:\n    """Names in a folder; folder names end with "/"."""\ndef file_exists(path: str) -> bool:\n    """True when a file or folder exists at path."""\ndef search_files(glob: str) -> list[str]:\n    """Project paths matching a glob such as "src/**/*.ts", sorted, at most 1000."""\ndef search_content(pattern: str, path: str = \'.\') -> list[dict]:\n    """Lines matching a regular expression (RE2 syntax) in the files under path, at most 500; each has path, line (1-based) and text."""\ndef get_file_tree() -> str:\n    """The project as an indented tree of names (ignored files left out)."""\ndef get_task() -> str:\n    """The task this program must carry out (with any reviewer feedback)."""\ndef ask_llm(prompt: str, context: str = \'\') -> str:\n    """A language model\'s answer to a prompt, with optional context (for example a file\'s text)."""\ndef log(message: str) -> bool:\n    """Writes a line to the agent\'s log."""\ndef submit_result(summary: str, changed_files: list[str]) -> bool:\n    """Ends the work: a one-line summary and the paths you changed, for the reviewer."""',
  pyReviewer:
    'def read_file(path: str) -> str:\n    """The UTF-8 text of a project file."""\ndef list_dir(path: str = \'.\') -> list[str]:\n    """Names in a folder; folder names end with "/"."""\ndef file_exists(path: str) -> bool:\n    """True when a file or folder exists at path."""\ndef search_files(glob: str) -> list[str]:\n    """Project paths matching a glob such as "src/**/*.ts", sorted, at most 1000."""\ndef search_content(pattern: str, path: str = \'.\') -> list[dict]:\n    """Lines matching a regular expression (RE2 syntax) in the files under path, at most 500; each has path, line (1-based) and text."""\ndef get_file_tree() -> str:\n    """The project as an indented tree of names (ignored files left out)."""\ndef get_task() -> str:\n    """The task this program must carry out (with any reviewer feedback)."""\ndef ask_llm(prompt: str, context: str = \'\') -> str:\n    """A language model\'s answer to a prompt, with optional context (for example a file\'s text)."""\ndef log(message: str) -> bool:\n    """Writes a line to the agent\'s log."""\ndef get_proposal() -> dict:\n    """Reviewers only: the proposal under review, { agent, task, summary, changes: [{ path, status }], diff, files: [{ path, status, before, after }] }."""\ndef decide(decision: str, note: str = \'\') -> bool:\n    """Reviewers only, once: \'do:merge\', \'defer:<reason>\', \'delegate:<actor>\', \'do:reply:<branch>\' (the note is the feedback), \'do:custom:<what>\' or \'delete:<reason>\'."""',
};

const EXAMPLES = {
  js: [
    '```js',
    '// Task: rename the function greet to welcome in src/hello.js',
    "const path = 'src/hello.js';",
    'const text = await read_file(path);',
    "if (!text.includes('function greet(')) {",
    "  log('greet is not defined in ' + path);",
    '} else {',
    "  await write_file(path, text.replaceAll('greet(', 'welcome('));",
    "  await submit_result('renamed greet to welcome', [path]);",
    '}',
    '```',
  ].join('\n'),
  py: [
    '```python',
    '# Task: rename the function greet to welcome in src/hello.py',
    "path = 'src/hello.py'",
    'text = read_file(path)',
    "if 'def greet(' not in text:",
    "    log('greet is not defined in ' + path)",
    'else:',
    "    write_file(path, text.replace('greet(', 'welcome('))",
    "    submit_result('renamed greet to welcome', [path])",
    '```',
  ].join('\n'),
};

const RULES = {
  js: [
    'Write one JavaScript program (the body of an async function: top-level `await` and `return` work).',
    'Every tool function is async: always `await` it.',
    'Only these functions exist: no import, no require, no process, no fs, no fetch, no timers.',
  ],
  py: [
    'Write one Python program (a module; no functions need to be async).',
    'Call the tool functions directly; they return their value.',
    'Only these functions exist: no import statements, no open(), no os, no subprocess.',
  ],
};

/**
 * The chat Cairn asked a model for a program with before prompts were built to a budget: the rules, the tool
 * declarations of that time, a worked example, the task and the first 400 lines of the file tree. A replay
 * of an agent recorded then rebuilds its prompt with it, byte for byte.
 */
export function buildLegacyProgramPrompt(input: LegacyPromptInput): ChatMessage[] {
  const language = input.lang === 'js' ? 'JavaScript' : 'Python';
  const role = input.reviewer
    ? [
        `You write small ${language} programs that review another agent's proposed change to a project, using only the tool functions below.`,
        ...RULES[input.lang].map((rule) => `- ${rule}`),
        '- Read the proposal with get_proposal(); read project files as needed. You cannot change any file.',
        "- Finish with exactly one decide(decision, note): 'do:merge' if the change is right, 'do:reply:<branch>' with what to fix as the note, or 'defer:<reason>'.",
      ]
    : [
        `You write small ${language} programs that carry out a coding task on a project, using only the tool functions below.`,
        ...RULES[input.lang].map((rule) => `- ${rule}`),
        '- Paths are relative to the project root, with "/" between folders ("src/app.ts"); never absolute, never "..".',
        '- Read a file before changing it, and write back the whole new content.',
        '- A tool call that is refused throws an error you may catch; protected files (.env, .git, CI configuration) cannot be changed.',
        '- Finish with submit_result(summary, changed_files).',
      ];
  const system = [
    ...role,
    '- Answer with the program in one fenced code block and nothing else.',
    '',
    'The tool functions:',
    '```' + (input.lang === 'js' ? 'ts' : 'python'),
    LEGACY_DECLARATIONS[`${input.lang}${input.reviewer === true ? 'Reviewer' : 'Author'}`],
    '```',
    '',
    ...(input.reviewer ? [] : ['An example:', EXAMPLES[input.lang]]),
  ].join('\n');
  const parts = [`Task: ${input.task}`, '', 'The project:', '```', input.fileTree, '```'];
  if (input.feedback !== undefined) {
    parts.push(
      '',
      'You already made a proposal for this task. A reviewer answered:',
      input.feedback,
      '',
      'Write a program that revises the proposal accordingly (the files already hold your earlier changes).',
    );
    if (input.previous !== undefined && input.previous.program !== '')
      parts.push('', 'Your earlier program:', fence(input.lang, input.previous.program));
  } else if (input.previous !== undefined) {
    parts.push(
      '',
      'Your earlier program:',
      fence(input.lang, input.previous.program),
      '',
      'It did not work:',
      input.previous.report,
      '',
      'Answer with the whole corrected program.',
    );
  }
  return [
    { role: 'system', content: system },
    { role: 'user', content: parts.join('\n') },
  ];
}

function fence(lang: 'js' | 'py', program: string): string {
  return '```' + (lang === 'js' ? 'js' : 'python') + '\n' + program.replace(/\n+$/, '') + '\n```';
}
