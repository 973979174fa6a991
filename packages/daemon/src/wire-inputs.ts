import type { AgentState, ReviewOptions, SpawnOptions } from '@cairn/api';
import { CairnError, parseAgentStates, parseSpawnOptions } from '@cairn/api';

// The daemon's side of the wire: every piece of a request read as untrusted input, a wrong one refused with
// `CAIRN_INVALID_ARGUMENT` naming it (and the HTTP status 400).

/** What a route reads of a request: its path parameters, its query, and its JSON body (`{}` when it has none). */
export interface WireInput {
  param(name: string): string;
  query(name: string): string | undefined;
  queries(name: string): string[] | undefined;
  body: Record<string, unknown>;
}

/** A request body as text, parsed: empty is `{}`; anything but a JSON object is refused. */
export function parseBody(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid('the request body is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('the request body must be a JSON object');
  return body as Record<string, unknown>;
}

/** A text field the body must have. */
export function readText(body: Record<string, unknown>, name: string): string {
  const value = body[name];
  if (typeof value !== 'string') throw invalid(`the body needs a "${name}" text`);
  return value;
}

/** A text field the body may have. */
export function readOptionalText(body: Record<string, unknown>, name: string): string | undefined {
  const value = body[name];
  if (value !== undefined && typeof value !== 'string') throw invalid(`"${name}" must be a text`);
  return value;
}

/** A true-or-false field the body may have. */
export function readOptionalFlag(body: Record<string, unknown>, name: string): boolean | undefined {
  const value = body[name];
  if (value !== undefined && typeof value !== 'boolean') throw invalid(`"${name}" must be true or false`);
  return value;
}

/** A number field the body must have. */
export function readNumber(body: Record<string, unknown>, name: string): number {
  const value = body[name];
  if (typeof value !== 'number') throw invalid(`the body needs a number "${name}"`);
  return value;
}

/** A list-of-texts field the body may have. */
export function readOptionalTexts(body: Record<string, unknown>, name: string): string[] | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw invalid(`"${name}" must be a list of texts`);
  return value as string[];
}

/** Agent states from a query (`?state=reviewing,failed`): undefined without one, none for `?state=` (as `[]` is to the API). */
export function readStates(raw: string | undefined): AgentState[] | undefined {
  if (raw === undefined) return undefined;
  if (raw === '') return [];
  return parseAgentStates(raw.split(','));
}

/** A number from a query (`?limit=20`); undefined when the query gives none. */
export function readQueryNumber(raw: string | undefined, name: string): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value)) throw invalid(`?${name}= must be a number (got "${raw}")`);
  return value;
}

/** A yes-or-no query (`?all=1`): `1` or `true` is yes, nothing, `0` or `false` is no. */
export function readQueryFlag(raw: string | undefined, name: string): boolean {
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw invalid(`?${name}= must be 1 or 0 (got "${raw}")`);
}

/** The body of `POST /agents`: the task, its spawn options (checked by `parseSpawnOptions`) and whether it goes to the front. */
export function readSpawnBody(body: Record<string, unknown>): { task: string; options: SpawnOptions; mode: 'spawn' | 'queue' } {
  const { task, mode = 'spawn', ...rest } = body;
  if (typeof task !== 'string') throw invalid('the body needs a "task" text');
  if (mode !== 'spawn' && mode !== 'queue') throw invalid(`"mode" must be "spawn" or "queue" (got ${JSON.stringify(mode)})`);
  return { task, options: parseSpawnOptions(rest), mode };
}

/** The body of `POST /agents/:id/review`: a reviewer named in the project's settings, or a program or model (checked by `parseSpawnOptions`). */
export function readReviewBody(body: Record<string, unknown>): ReviewOptions {
  const { as, scope, ...rest } = body;
  if (scope !== undefined) throw invalid('a reviewer takes no "scope": it writes nothing');
  const { code, lang, model, limits, budgets } = parseSpawnOptions(rest);
  const options: ReviewOptions = {};
  if (as !== undefined) {
    if (typeof as !== 'string') throw invalid('"as" must be a reviewer name');
    options.as = as;
  }
  if (code !== undefined) options.code = code;
  if (lang !== undefined) options.lang = lang;
  if (model !== undefined) options.model = model;
  if (limits !== undefined) options.limits = limits;
  if (budgets !== undefined) options.budgets = budgets;
  return options;
}

function invalid(message: string): CairnError {
  return new CairnError('CAIRN_INVALID_ARGUMENT', message);
}
