/** A parsed reference: `@plan.input[.path]`, `@var:name[.path]`, `@step:ID[.path]`. */
export interface ExprRef {
  root: 'input' | 'var' | 'step';
  /** The variable or step id (empty for the plan input). */
  name: string;
  path: string[];
}

const SEGMENT = '[A-Za-z_][A-Za-z0-9_-]*';
const INPUT = new RegExp(`^@plan\\.input((?:\\.${SEGMENT})*)$`);
const VAR_OR_STEP = new RegExp(`^@(var|step):(${SEGMENT})((?:\\.${SEGMENT})*)$`);

/** Parses a reference string; undefined when it is not one of the three forms. */
export function parseExprRef(text: string): ExprRef | undefined {
  const input = INPUT.exec(text);
  if (input) return { root: 'input', name: '', path: splitFields(input[1]!) };
  const other = VAR_OR_STEP.exec(text);
  if (other) return { root: other[1] as 'var' | 'step', name: other[2]!, path: splitFields(other[3]!) };
  return undefined;
}

function splitFields(text: string): string[] {
  return text === '' ? [] : text.slice(1).split('.');
}
