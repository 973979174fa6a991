/** Stable codes of the problems parsers report. */
export type DiagnosticCode =
  | 'empty'
  | 'missing-separator'
  | 'unknown-decision'
  | 'unknown-action'
  | 'missing-payload'
  | 'unexpected-payload'
  | 'invalid-reason'
  | 'invalid-actor'
  | 'invalid-branch'
  | 'invalid-description'
  | 'invalid-timestamp'
  | 'missing-title'
  | 'missing-field'
  | 'duplicate-field'
  | 'unknown-field'
  | 'missing-separator-line'
  | 'duplicate-triage'
  | 'invalid-line'
  | 'invalid-date';

/** One problem: what, and where (1-based line and column in the text parsed). */
export interface Diagnostic {
  code: DiagnosticCode;
  message: string;
  line: number;
  column: number;
}

/** A diagnostic at a position. */
export function diagnose(code: DiagnosticCode, message: string, line = 1, column = 1): Diagnostic {
  return { code, message, line, column };
}

/** Moves a diagnostic found in a fragment to its place in the enclosing text. */
export function relocate(diagnostic: Diagnostic, line: number, column: number): Diagnostic {
  return {
    ...diagnostic,
    line: line + diagnostic.line - 1,
    column: diagnostic.line === 1 ? column + diagnostic.column - 1 : diagnostic.column,
  };
}
