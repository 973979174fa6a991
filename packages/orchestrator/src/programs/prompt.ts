import type { ChatMessage } from '@cairn/model';
import { renderToolDeclarations } from '../tools/tool-table.js';

/** What a program prompt is built from. */
export interface ProgramPromptInput {
  task: string;
  lang: 'js' | 'py';
  /** The repo map: the files the task leads to, then the project by folder, already fitted to the budget. */
  projectMap: string;
  /** A reviewer's feedback on an earlier proposal (`do:reply`). */
  feedback?: string;
  /** A reviewer's program: it reads the proposal and decides. */
  reviewer?: boolean;
  /** The names of the project's checks, which a program may run with run_check(name). */
  checks?: readonly string[];
  /** The earlier program, and why it failed (empty for a revision). */
  previous?: { program: string; report: string };
}

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
 * The chat that asks a model for a program: who it is and the rules, the typed tool declarations, a short
 * worked example; then the task, the repo map, and for a repair the earlier program with its report, or
 * for a revision the reviewer's feedback.
 */
export function buildProgramPrompt(input: ProgramPromptInput): ChatMessage[] {
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
        ...(input.checks !== undefined && input.checks.length > 0
          ? ["- After changing files, run_check(name) runs one of the project's checks on your changes; fix what fails before you submit."]
          : []),
        '- Finish with submit_result(summary, changed_files).',
      ];
  const system = [
    ...role,
    '- Answer with the program in one fenced code block and nothing else.',
    '',
    'The tool functions:',
    '```' + (input.lang === 'js' ? 'ts' : 'python'),
    renderToolDeclarations(input.lang, input.reviewer === true, input.checks ?? []),
    '```',
    '',
    ...(input.reviewer ? [] : ['An example:', EXAMPLES[input.lang]]),
  ].join('\n');
  const parts = [
    `Task: ${input.task}`,
    '',
    'The project (the files the task leads to first, with their exported symbols; get_file_tree() and search_files() show more):',
    '```',
    input.projectMap,
    '```',
  ];
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
