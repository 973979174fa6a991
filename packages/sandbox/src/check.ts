import { createRequire } from 'node:module';
import type { parse as acornParse, Node } from 'acorn';
import type { CheckProblem } from './run-result.js';

const load = createRequire(import.meta.url);
let parser: typeof acornParse | undefined;

/** acorn's parser, loaded on the first check: a process that runs no program (most commands) never compiles it. */
function parse(...args: Parameters<typeof acornParse>): ReturnType<typeof acornParse> {
  parser ??= (load('acorn') as typeof import('acorn')).parse;
  return parser(...args);
}

/** The outcome of `checkProgram`: fine, or the problems with line:column, in a form a model can repair from. */
export type CheckResult = { ok: true } | { ok: false; problems: CheckProblem[]; report: string };

/**
 * Checks a JavaScript agent program before it runs: it must parse (as the body of an async function, so
 * top-level `await` and `return` work; strict mode) and must not use `import`, `export`, dynamic `import()`,
 * `import.meta` or `require(…)`. Tool functions are globals; there is nothing to import.
 */
export function checkProgram(code: string): CheckResult {
  if (typeof code !== 'string')
    return fail([{ kind: 'syntax', message: 'the program must be a string of JavaScript', line: 1, column: 1 }]);
  let ast: Node;
  try {
    ast = parse(code, {
      ecmaVersion: 'latest',
      sourceType: 'module',
      allowReturnOutsideFunction: true,
      allowAwaitOutsideFunction: true,
      locations: true,
    });
  } catch (error) {
    const e = error as SyntaxError & { loc?: { line: number; column: number } };
    const message = e.message.replace(/ \(\d+:\d+\)$/, '');
    return fail([{ kind: 'syntax', message, line: e.loc?.line ?? 1, column: (e.loc?.column ?? 0) + 1 }]);
  }
  const problems: CheckProblem[] = [];
  visit(ast, (node) => {
    const at = (node as Node & { loc: { start: { line: number; column: number } } }).loc.start;
    const report = (message: string) => problems.push({ kind: 'forbidden', message, line: at.line, column: at.column + 1 });
    switch (node.type) {
      case 'ImportDeclaration':
        report('"import" is not available: the tool functions are already globals (read_file, write_file, …)');
        break;
      case 'ExportNamedDeclaration':
      case 'ExportDefaultDeclaration':
      case 'ExportAllDeclaration':
        report('"export" is not available: a program returns its result with "return"');
        break;
      case 'ImportExpression':
        report('dynamic "import()" is not available');
        break;
      case 'MetaProperty':
        if ((node as Node & { meta: { name: string } }).meta.name === 'import') report('"import.meta" is not available');
        break;
      case 'CallExpression': {
        const callee = (node as Node & { callee: Node & { name?: string } }).callee;
        if (callee.type === 'Identifier' && callee.name === 'require')
          report('"require" is not available: the tool functions are already globals');
        break;
      }
    }
  });
  problems.sort((a, b) => a.line - b.line || a.column - b.column);
  return problems.length === 0 ? { ok: true } : fail(problems);
}

function fail(problems: CheckProblem[]): CheckResult {
  const report = problems
    .map((p) => `line ${p.line}, column ${p.column}: ${p.kind === 'syntax' ? 'syntax error: ' : ''}${p.message}`)
    .join('\n');
  return { ok: false, problems, report };
}

function visit(node: unknown, fn: (node: Node) => void): void {
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const current = stack.pop();
    if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push(current[i]);
      continue;
    }
    if (typeof current !== 'object' || current === null || typeof (current as { type?: unknown }).type !== 'string') continue;
    fn(current as Node);
    for (const [key, value] of Object.entries(current)) {
      if (key !== 'loc' && typeof value === 'object' && value !== null) stack.push(value);
    }
  }
}

/** `import sys`, the one import a program may make (for `sys.exit`). */
const SYS_IMPORT = /^\s*import\s+sys\s*(#.*)?$/;

/**
 * Checks a Python agent program for what the sandbox forbids: `import` and `from … import` (but `import sys`). Syntax is
 * checked by the interpreter in the child process (a syntax error ends the run as `rejected`), so no
 * parser of untrusted text runs in the host.
 */
export function checkPythonProgram(code: string): CheckResult {
  if (typeof code !== 'string') return fail([{ kind: 'syntax', message: 'the program must be a string of Python', line: 1, column: 1 }]);
  const problems: CheckProblem[] = [];
  let inTriple: string | undefined;
  code.split(/\r?\n/).forEach((text, i) => {
    let rest = text;
    if (inTriple !== undefined) {
      const end = rest.indexOf(inTriple);
      if (end < 0) return;
      rest = rest.slice(end + 3);
      inTriple = undefined;
    }
    const statement = /^(\s*)(import\s|from\s+[\w.]+\s+import\b)/.exec(rest);
    if (statement && rest === text && !SYS_IMPORT.test(rest)) {
      problems.push({
        kind: 'forbidden',
        message: '"import" is not available: the tool functions are already defined (read_file, write_file, …)',
        line: i + 1,
        column: statement[1]!.length + 1,
      });
    }
    for (const quote of ['"""', "'''"]) {
      const count = rest.split(quote).length - 1;
      if (count % 2 === 1) inTriple = quote;
    }
  });
  return problems.length === 0 ? { ok: true } : fail(problems);
}
