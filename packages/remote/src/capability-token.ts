import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { signText, verifyText } from './signing-key.js';

const count = v.pipe(v.number(), v.integer(), v.minValue(0));

const claimsSchema = v.object({
  job: v.string(),
  agent: v.string(),
  attempt: v.pipe(count, v.minValue(1)),
  model: v.string(),
  /** The grants the agent runs under, by name (the governance's hash pins their content). */
  grants: v.array(v.string()),
  governance: v.string(),
  budgets: v.object({ tokens: count, bytes: count, calls: count, wallMs: count, repairs: count }),
  snapshot: v.string(),
  /** Unix milliseconds after which no worker may start the job, and no result of it is accepted. */
  expiresAt: count,
});

/** What a capability token grants: one attempt of one agent, its model, grants and budgets, until it expires. */
export type TokenClaims = v.InferOutput<typeof claimsSchema>;

/** A token: the claims as base64url JSON, a dot, the coordinator's Ed25519 signature of that text (hex). */
export function signToken(claims: TokenClaims, secret: Uint8Array): string {
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return `${body}.${signText(secret, body)}`;
}

/** The claims of `token`, read without checking its signature (a worker does not hold the coordinator's key). */
export function readToken(token: string): { ok: true; claims: TokenClaims } | { ok: false; reason: string } {
  const [body, signature, extra] = token.split('.');
  if (body === undefined || signature === undefined || extra !== undefined)
    return { ok: false, reason: 'the capability token is not body.signature' };
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'the capability token does not hold JSON' };
  }
  const parsed = v.safeParse(claimsSchema, json);
  return parsed.success
    ? { ok: true, claims: parsed.output }
    : { ok: false, reason: `the capability token's claims are malformed: ${v.summarize(parsed.issues)}` };
}

/** The claims of `token` when the coordinator's key signed it and it has not expired at `now`; else why not. */
export function verifyToken(
  token: string,
  publicKey: Uint8Array,
  now: number,
): { ok: true; claims: TokenClaims } | { ok: false; reason: string } {
  const read = readToken(token);
  if (!read.ok) return read;
  const [body, signature] = token.split('.') as [string, string];
  if (!verifyText(publicKey, body, signature)) return { ok: false, reason: "the capability token is not signed by this coordinator's key" };
  if (read.claims.expiresAt <= now)
    return { ok: false, reason: `the capability token expired at ${new Date(read.claims.expiresAt).toISOString()}` };
  return read;
}

/** `sha256:<hex>` of a token: an agent's journal run remotely starts from it. */
export function tokenHash(token: string): string {
  return `sha256:${createHash('sha256').update(token).digest('hex')}`;
}

/** `sha256:<hex>` of a governance's JSON text, as a capability token's `governance` claim pins it. */
export function governanceHash(json: string): string {
  return `sha256:${createHash('sha256').update(json).digest('hex')}`;
}
