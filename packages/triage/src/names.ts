import { type Diagnostic, diagnose } from './diagnostic.js';
import { fail, type Result, succeed } from './result.js';

declare const brand: unique symbol;
type Branded<T, B extends string> = T & { readonly [brand]: B };

/** Why a proposal was deleted or deferred: one line of text. */
export type Reason = Branded<string, 'Reason'>;
/** Who a decision is delegated to, or who made it: a peer or agent name. */
export type Actor = Branded<string, 'Actor'>;
/** A git branch name (the proposal's, or a reply's). */
export type BranchName = Branded<string, 'BranchName'>;
/** What a custom action should do: one line of text. */
export type Description = Branded<string, 'Description'>;

const MAX_TEXT = 500;
const ACTOR = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function checkLine(kind: string, code: Diagnostic['code'], text: string): Diagnostic | undefined {
  if (text.length === 0) return diagnose(code, `${kind} is empty`);
  if (text.trim() !== text) return diagnose(code, `${kind} has leading or trailing whitespace`);
  const newline = text.search(/[\r\n]/);
  if (newline >= 0) return diagnose(code, `${kind} must be one line`, 1, newline + 1);
  const control = text.search(/[\u0000-\u001f\u007f]/);
  if (control >= 0) return diagnose(code, `${kind} contains a control character`, 1, control + 1);
  if (text.length > MAX_TEXT) return diagnose(code, `${kind} is longer than ${MAX_TEXT} characters`, 1, MAX_TEXT + 1);
  return undefined;
}

/** Checks and brands a reason. */
export function parseReason(text: string): Result<Reason, Diagnostic> {
  const problem = checkLine('reason', 'invalid-reason', text);
  return problem ? fail(problem) : succeed(text as Reason);
}

/** Checks and brands a description. */
export function parseDescription(text: string): Result<Description, Diagnostic> {
  const problem = checkLine('description', 'invalid-description', text);
  return problem ? fail(problem) : succeed(text as Description);
}

/** Checks and brands an actor: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export function parseActor(text: string): Result<Actor, Diagnostic> {
  if (text.length === 0) return fail(diagnose('invalid-actor', 'actor is empty'));
  if (text.length > 100) return fail(diagnose('invalid-actor', 'actor is longer than 100 characters', 1, 101));
  if (!ACTOR.test(text)) {
    const bad = [...text].findIndex((c, i) => !(i === 0 ? /[A-Za-z0-9]/ : /[A-Za-z0-9._-]/).test(c));
    return fail(
      diagnose(
        'invalid-actor',
        `actor '${text}' may hold only letters, digits, '.', '_' and '-', starting with a letter or digit`,
        1,
        bad + 1,
      ),
    );
  }
  return succeed(text as Actor);
}

/** Checks and brands a branch name by git's ref-name rules (as `git check-ref-format --branch`). */
export function parseBranchName(text: string): Result<BranchName, Diagnostic> {
  const problem = branchProblem(text);
  if (problem === undefined) return succeed(text as BranchName);
  return fail(diagnose('invalid-branch', `branch '${text}' ${problem.message}`, 1, problem.column));
}

function branchProblem(text: string): { message: string; column: number } | undefined {
  if (text.length === 0) return { message: 'is empty', column: 1 };
  if (text.length > 255) return { message: 'is longer than 255 characters', column: 256 };
  const bad = text.search(/[\u0000-\u0020\u007f~^:?*[\\]/);
  if (bad >= 0) return { message: `contains '${text[bad] === ' ' ? 'a space' : text[bad]}', which git does not allow`, column: bad + 1 };
  const checks: [RegExp, string][] = [
    [/^-/, "starts with '-'"],
    [/^\//, "starts with '/'"],
    [/\/$/, "ends with '/'"],
    [/\/\//, "contains '//'"],
    [/\.\./, "contains '..'"],
    [/@\{/, "contains '@{'"],
    [/\.$/, "ends with '.'"],
    [/\.lock$/, "ends with '.lock'"],
    [/(^|\/)\./, "has a component starting with '.'"],
    [/^@$/, "is '@'"],
  ];
  for (const [pattern, message] of checks) {
    const match = pattern.exec(text);
    if (match) return { message, column: match.index + 1 };
  }
  return undefined;
}

/** The owner of a branch by the protocol's naming: the part before the first '/', if it is an actor name. */
export function ownerOfBranch(branch: BranchName): Actor | undefined {
  const slash = branch.indexOf('/');
  if (slash <= 0) return undefined;
  const owner = parseActor(branch.slice(0, slash));
  return owner.ok ? owner.value : undefined;
}
