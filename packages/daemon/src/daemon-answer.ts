import { CairnError, type CairnErrorCode, oneLine } from '@cairn/api';
import * as v from 'valibot';
import { errorBodySchema } from './wire-schemas.js';

// The client's side of the wire: what the daemon sends is read as untrusted input, never cast.

/** Every code a `CairnError` may carry (a record, so a code added to the union must be added here). */
const KNOWN_CODES: Record<CairnErrorCode, true> = {
  CAIRN_NOT_FOUND: true,
  CAIRN_INVALID_STATE: true,
  CAIRN_INVALID_ARGUMENT: true,
  CAIRN_INVALID_PATH: true,
  CAIRN_MANIFEST: true,
  CAIRN_CONFIG: true,
  CAIRN_PROJECT: true,
  CAIRN_CORRUPT: true,
  CAIRN_BUSY: true,
  CAIRN_DAEMON: true,
  CAIRN_CLOSED: true,
  CAIRN_REMOTE: true,
  CAIRN_INTERNAL: true,
};

const VERSION_HINT = 'is the daemon the same version of Cairn as this command? restart it with `cairn down && cairn up`';

/** What a piece of JSON from the daemon holds, or the one-line reason it does not hold what `schema` says. */
export function parseJsonAs<R>(schema: v.GenericSchema<unknown, R>, text: string): { ok: true; value: R } | { ok: false; problem: string } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, problem: `not JSON: ${excerpt(text)}` };
  }
  const parsed = v.safeParse(schema, json);
  return parsed.success ? { ok: true, value: parsed.output } : { ok: false, problem: oneLine(v.summarize(parsed.issues)) };
}

/** The value of a successful answer to `what` (`GET /agents/:id`), parsed by the route's schema; `CAIRN_DAEMON` when it does not parse. */
export function readAnswer<R>(schema: v.GenericSchema<unknown, R>, text: string, what: string): R {
  const parsed = parseJsonAs(schema, text);
  if (parsed.ok) return parsed.value;
  throw new CairnError('CAIRN_DAEMON', `the daemon's answer to ${what} cannot be read: ${parsed.problem}`, { hint: VERSION_HINT });
}

/**
 * The error an error answer stands for: the daemon's code, message and hint; a code this client does not know
 * becomes `CAIRN_DAEMON` with the daemon's message kept; a body that is not `{ code, message, hint? }` becomes
 * `CAIRN_DAEMON` saying what came.
 */
export function answeredError(status: number, text: string, what: string): CairnError {
  const parsed = parseJsonAs(errorBodySchema, text);
  if (!parsed.ok)
    return new CairnError('CAIRN_DAEMON', `the daemon answered ${what} with ${status} and no error it can read: ${parsed.problem}`);
  const { code, message, hint } = parsed.value;
  if (isKnownCode(code)) return new CairnError(code, message, hint === undefined ? {} : { hint });
  return new CairnError('CAIRN_DAEMON', message, {
    hint: hint ?? `the daemon answered with code ${code}, which this client does not know; ${VERSION_HINT}`,
  });
}

function isKnownCode(code: string): code is CairnErrorCode {
  return Object.hasOwn(KNOWN_CODES, code);
}

function excerpt(text: string): string {
  const line = oneLine(text);
  return line === '' ? '(nothing)' : JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
}
