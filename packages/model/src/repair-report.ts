/** Why a program failed, for the model to repair it. */
export type RepairFailure =
  | { kind: 'check'; program: string; problems: readonly { line: number; column: number; message: string }[] }
  | { kind: 'runtime'; program: string; error: { name: string; message: string; line?: number; column?: number } }
  | { kind: 'call'; program: string; call: { tool: string; args: readonly unknown[]; message: string } };

const MAX_PROBLEMS = 5;

/**
 * A short report a small model can act on: what went wrong, where (line and column), the offending line of
 * the program quoted with a caret under the column, and for a failing tool call the call and its error.
 */
export function formatRepairReport(failure: RepairFailure): string {
  const lines = failure.program.split('\n');
  const quote = (line: number, column?: number): string[] => {
    const text = lines[line - 1];
    if (text === undefined) return [];
    const out = [`  ${line} | ${text}`];
    if (column !== undefined && column >= 1) out.push(`  ${' '.repeat(String(line).length)} | ${' '.repeat(column - 1)}^`);
    return out;
  };
  if (failure.kind === 'check') {
    const out = ['The program was refused before it ran:'];
    for (const problem of failure.problems.slice(0, MAX_PROBLEMS))
      out.push(`- line ${problem.line}, column ${problem.column}: ${problem.message}`, ...quote(problem.line, problem.column));
    if (failure.problems.length > MAX_PROBLEMS) out.push(`- and ${failure.problems.length - MAX_PROBLEMS} more problems`);
    return out.join('\n');
  }
  if (failure.kind === 'runtime') {
    const { error } = failure;
    const where = error.line === undefined ? '' : ` at line ${error.line}${error.column === undefined ? '' : `, column ${error.column}`}`;
    return [
      `The program stopped with ${error.name}${where}: ${firstLine(error.message)}`,
      ...(error.line === undefined ? [] : quote(error.line, error.column)),
    ].join('\n');
  }
  const args = failure.call.args.map((arg) => abbreviate(JSON.stringify(arg) ?? String(arg))).join(', ');
  return [
    `The call ${failure.call.tool}(${args}) failed: ${firstLine(failure.call.message)}`,
    'Fix the program so it does not make this call, or handles its error.',
  ].join('\n');
}

function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 400);
}

function abbreviate(text: string): string {
  return text.length > 80 ? text.slice(0, 77) + '...' : text;
}
