import type { Action, Triage } from './decision.js';
import { type Diagnostic, diagnose, relocate } from './diagnostic.js';
import { TriageError } from './errors.js';
import { parseActor, parseBranchName, parseDescription, parseReason } from './names.js';
import { fail, type Result, succeed } from './result.js';

/** Every accepted form, for messages. */
export const TRIAGE_FORMS = [
  'delete:<reason>',
  'defer:<reason>',
  'delegate:<actor>',
  'do:merge',
  'do:reply:<branch>',
  'do:custom:<description>',
];

const VERBS: Record<string, 'delete' | 'defer' | 'delegate' | 'do'> = {
  delete: 'delete',
  d: 'delete',
  defer: 'defer',
  f: 'defer',
  delegate: 'delegate',
  g: 'delegate',
  do: 'do',
};

const FORM_OF = { delete: 'delete:<reason>', defer: 'defer:<reason>', delegate: 'delegate:<actor>', do: 'do:merge' } as const;

const SUGGESTIONS: Record<string, string> = {
  merge: 'do:merge',
  reply: 'do:reply:<branch>',
  custom: 'do:custom:<description>',
  reject: 'delete:<reason>',
  drop: 'delete:<reason>',
  later: 'defer:<reason>',
  postpone: 'defer:<reason>',
  assign: 'delegate:<actor>',
  accept: 'do:merge',
  approve: 'do:merge',
};

/**
 * Parses the string form of a decision: `delete:<reason>` (`d:`), `defer:<reason>` (`f:`), `delegate:<actor>`
 * (`g:`), `do:merge`, `do:reply:<branch>`, `do:custom:<description>`. Surrounding whitespace and whitespace
 * around a payload are ignored; verbs are lower case. Columns in diagnostics count from 1 in `text`.
 */
export function parseTriage(text: string): Result<Triage, Diagnostic> {
  const lead = text.length - text.trimStart().length;
  const body = text.trim();
  const at = (d: Diagnostic) => relocate(d, 1, lead + 1);
  if (body.length === 0) return fail(diagnose('empty', `no decision; expected one of ${TRIAGE_FORMS.join(', ')}`));
  const colon = body.indexOf(':');
  const verbText = (colon < 0 ? body : body.slice(0, colon)).trimEnd();
  const verb = VERBS[verbText];
  if (verb === undefined) {
    const lower = VERBS[verbText.toLowerCase()];
    const hint = SUGGESTIONS[verbText.toLowerCase()] ?? (lower === undefined ? undefined : FORM_OF[lower]);
    const message = `unknown decision '${verbText}'; expected one of ${TRIAGE_FORMS.join(', ')}${hint ? ` (did you mean ${hint}?)` : ''}`;
    return fail(at(diagnose('unknown-decision', message)));
  }
  if (colon < 0) {
    const form =
      verb === 'do' ? 'do:merge, do:reply:<branch> or do:custom:<description>' : `${verb}:${verb === 'delegate' ? '<actor>' : '<reason>'}`;
    return fail(at(diagnose('missing-separator', `'${verbText}' needs a ':' and what follows it: ${form}`, 1, body.length + 1)));
  }
  const rest = body.slice(colon + 1);
  const restColumn = colon + 2;
  if (verb === 'do') {
    const action = parseAction(rest);
    return action.ok ? succeed({ type: 'do', action: action.value }) : fail(at(relocate(action.error, 1, restColumn)));
  }
  const payloadLead = rest.length - rest.trimStart().length;
  const payload = rest.trim();
  const payloadColumn = restColumn + payloadLead;
  if (payload.length === 0) {
    const what = verb === 'delegate' ? 'an actor' : 'a reason';
    return fail(
      at(
        diagnose('missing-payload', `${verb} needs ${what}: write ${verb}:${verb === 'delegate' ? '<actor>' : '<reason>'}`, 1, restColumn),
      ),
    );
  }
  if (verb === 'delegate') {
    const actor = parseActor(payload);
    return actor.ok ? succeed({ type: 'delegate', actor: actor.value }) : fail(at(relocate(actor.error, 1, payloadColumn)));
  }
  const reason = parseReason(payload);
  return reason.ok ? succeed({ type: verb, reason: reason.value }) : fail(at(relocate(reason.error, 1, payloadColumn)));
}

function parseAction(rest: string): Result<Action, Diagnostic> {
  const lead = rest.length - rest.trimStart().length;
  const body = rest.trim();
  const at = (d: Diagnostic) => relocate(d, 1, lead + 1);
  if (body.length === 0)
    return fail(diagnose('missing-payload', 'do needs an action: do:merge, do:reply:<branch> or do:custom:<description>'));
  const colon = body.indexOf(':');
  const name = (colon < 0 ? body : body.slice(0, colon)).trimEnd();
  const payloadRaw = colon < 0 ? undefined : body.slice(colon + 1);
  const payloadLead = payloadRaw === undefined ? 0 : payloadRaw.length - payloadRaw.trimStart().length;
  const payload = payloadRaw?.trim();
  const payloadColumn = colon + 2 + payloadLead;
  switch (name) {
    case 'merge':
      if (payloadRaw !== undefined)
        return fail(at(diagnose('unexpected-payload', `do:merge takes nothing after it; found ':${payloadRaw}'`, 1, colon + 1)));
      return succeed({ type: 'merge' });
    case 'reply': {
      if (payload === undefined || payload.length === 0)
        return fail(
          at(diagnose('missing-payload', 'do:reply needs a branch: write do:reply:<branch>', 1, (colon < 0 ? name.length : colon) + 1)),
        );
      const branch = parseBranchName(payload);
      return branch.ok ? succeed({ type: 'reply', branch: branch.value }) : fail(at(relocate(branch.error, 1, payloadColumn)));
    }
    case 'custom': {
      if (payload === undefined || payload.length === 0)
        return fail(
          at(
            diagnose(
              'missing-payload',
              'do:custom needs a description: write do:custom:<description>',
              1,
              (colon < 0 ? name.length : colon) + 1,
            ),
          ),
        );
      const description = parseDescription(payload);
      return description.ok
        ? succeed({ type: 'custom', description: description.value })
        : fail(at(relocate(description.error, 1, payloadColumn)));
    }
    default:
      return fail(
        at(diagnose('unknown-action', `unknown action 'do:${name}'; expected do:merge, do:reply:<branch> or do:custom:<description>`)),
      );
  }
}

/** The canonical string form of a decision (long verbs); `parseTriage(formatTriage(t))` gives `t` back. */
export function formatTriage(decision: Triage): string {
  const checked = checkTriage(decision);
  if (!checked.ok) throw new TriageError('TRIAGE_INVALID_VALUE', `cannot format an invalid decision: ${checked.error.message}`);
  switch (decision.type) {
    case 'delete':
    case 'defer':
      return `${decision.type}:${decision.reason}`;
    case 'delegate':
      return `delegate:${decision.actor}`;
    case 'do':
      switch (decision.action.type) {
        case 'merge':
          return 'do:merge';
        case 'reply':
          return `do:reply:${decision.action.branch}`;
        case 'custom':
          return `do:custom:${decision.action.description}`;
      }
  }
}

/** Checks a value from an untyped source (JSON, a message) is a valid decision, with every payload valid. */
export function checkTriage(value: unknown): Result<Triage, Diagnostic> {
  const invalid = (message: string) => fail(diagnose('unknown-decision', message));
  if (typeof value !== 'object' || value === null) return invalid('a decision must be an object with a "type"');
  const v = value as Record<string, unknown>;
  const text = (field: string) => (typeof v[field] === 'string' ? (v[field] as string) : undefined);
  switch (v.type) {
    case 'delete':
    case 'defer': {
      const reason = parseReason(text('reason') ?? '');
      return reason.ok ? succeed({ type: v.type, reason: reason.value }) : fail(reason.error);
    }
    case 'delegate': {
      const actor = parseActor(text('actor') ?? '');
      return actor.ok ? succeed({ type: 'delegate', actor: actor.value }) : fail(actor.error);
    }
    case 'do': {
      const action = v.action as Record<string, unknown> | null | undefined;
      if (typeof action !== 'object' || action === null) return invalid('a "do" decision needs an "action" object');
      if (action.type === 'merge') return succeed({ type: 'do', action: { type: 'merge' } });
      if (action.type === 'reply') {
        const branch = parseBranchName(typeof action.branch === 'string' ? action.branch : '');
        return branch.ok ? succeed({ type: 'do', action: { type: 'reply', branch: branch.value } }) : fail(branch.error);
      }
      if (action.type === 'custom') {
        const description = parseDescription(typeof action.description === 'string' ? action.description : '');
        return description.ok
          ? succeed({ type: 'do', action: { type: 'custom', description: description.value } })
          : fail(description.error);
      }
      return fail(diagnose('unknown-action', `unknown action type ${JSON.stringify(action.type)}; expected "merge", "reply" or "custom"`));
    }
    default:
      return invalid(`unknown decision type ${JSON.stringify(v.type)}; expected "delete", "defer", "delegate" or "do"`);
  }
}
