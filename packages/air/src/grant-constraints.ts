import { compareDec128, parseDec128 } from './dec128.js';
import { fsExclusionOf } from './fs-exclusions.js';
import { normalProjectPath } from './project-path.js';

type Json = Record<string, unknown>;

const asSet = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : undefined;

/** The WHATWG URL parser, global in every runtime AIR targets (this package is built without DOM or Node types). */
declare const URL: new (
  input: string,
) => { protocol: string; username: string; password: string; hostname: string; pathname: string; href: string };

/** An http(s) URL as `fetch` will see it, or why it is refused. */
export type ParsedHttpUrl = { ok: true; href: string; host: string; path: string } | { ok: false; problem: string };

/**
 * Parses a URL with the WHATWG URL parser — the one `fetch` uses — so the host and path checked are the ones a
 * request goes to: backslashes, dot segments (`..`, `%2e%2e`) and case are resolved the same way. Only http
 * and https are admitted, and userinfo (`user:pass@`) is refused outright. `href` is the normalised URL the
 * intent carries, so the adapter fetches exactly what was checked.
 */
export function parseHttpUrl(raw: unknown): ParsedHttpUrl {
  if (typeof raw !== 'string') return { ok: false, problem: 'the url is not text' };
  let url: InstanceType<typeof URL>;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, problem: `${JSON.stringify(raw)} is not a URL` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, problem: `${JSON.stringify(raw)} is not an http(s) URL` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, problem: `${JSON.stringify(raw)} carries userinfo, which is refused` };
  if (url.hostname === '') return { ok: false, problem: `${JSON.stringify(raw)} has no host` };
  return { ok: true, href: url.href, host: url.hostname.toLowerCase(), path: url.pathname };
}

/** True when `host` is allowed by a list of hosts (`example.com`, or `*.example.com` for subdomains). */
export function hostAllowed(host: string, allowed: readonly string[]): boolean {
  return allowed.some((entry) => {
    const e = entry.toLowerCase();
    return e.startsWith('*.') ? host.endsWith(e.slice(1)) : host === e;
  });
}

function within(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => {
    const prefix = normalProjectPath(p) ?? '\0';
    return prefix === '' || path === prefix || path.startsWith(prefix + '/');
  });
}

/**
 * Checks an effect's parameters against a grant's (AIR v1 §9, and the `fs` capability): returns why they do
 * not fit, or undefined when they do.
 */
export function checkGrantConstraints(kind: string, params: Json, grant: Json): string | undefined {
  switch (kind) {
    case 'http.request': {
      const url = parseHttpUrl(params.url);
      if (!url.ok) return url.problem;
      if (url.href !== params.url) return `the url must be given normalised, as ${JSON.stringify(url.href)}`;
      if (!hostAllowed(url.host, asSet(grant.hosts) ?? [])) return `host "${url.host}" is not in the grant's hosts`;
      const method = String(params.method ?? '').toUpperCase();
      if (!(asSet(grant.verbs) ?? []).map((v) => v.toUpperCase()).includes(method)) return `method "${method}" is not in the grant's verbs`;
      const prefixes = asSet(grant.path_prefixes);
      if (prefixes !== undefined && !prefixes.some((p) => url.path.startsWith(p)))
        return `path "${url.path}" is outside the grant's path prefixes`;
      return undefined;
    }
    case 'llm.generate': {
      for (const [field, list] of [
        ['provider', 'providers'],
        ['model', 'models'],
      ] as const) {
        const allowed = asSet(grant[list]);
        if (allowed !== undefined && !allowed.includes(String(params[field])))
          return `${field} "${String(params[field])}" is not in the grant's ${list}`;
      }
      if (typeof grant.max_tokens_max === 'number' && Number(params.max_tokens) > grant.max_tokens_max)
        return `max_tokens ${String(params.max_tokens)} exceeds the grant's ${grant.max_tokens_max}`;
      if (typeof grant.temperature_max === 'string') {
        const limit = parseDec128(grant.temperature_max);
        const wanted = typeof params.temperature === 'string' ? parseDec128(params.temperature) : undefined;
        if (limit === undefined || wanted === undefined || compareDec128(wanted, limit) > 0)
          return `temperature ${String(params.temperature)} exceeds the grant's ${grant.temperature_max}`;
      }
      const toolsAllowed = asSet(grant.tools_allow);
      const tools = asSet(params.tools) ?? [];
      if (toolsAllowed !== undefined && tools.some((t) => !toolsAllowed.includes(t)))
        return "a requested tool is not in the grant's tools_allow";
      return undefined;
    }
    case 'blob.put':
    case 'blob.get': {
      const namespaces = asSet(grant.namespaces);
      return namespaces === undefined || namespaces.includes(String(params.namespace))
        ? undefined
        : `namespace "${String(params.namespace)}" is not in the grant's namespaces`;
    }
    case 'timer.set':
      return undefined;
    case 'fs.read':
    case 'fs.list':
    case 'fs.search':
      return checkFsPath(params.path, grant, 'read');
    case 'fs.write':
      return checkFsWrite(params, grant);
    case 'check.run':
      return (asSet(grant.checks) ?? []).includes(String(params.name))
        ? undefined
        : `check "${String(params.name)}" is not in the grant's checks`;
    default:
      return `no constraint check for effect kind "${kind}"`;
  }
}

const FS_WRITE_OPS = ['write', 'delete', 'move', 'mkdir', 'link', 'chmod'];

/** Why a path may not be read (or written) under an `fs` grant: outside the prefixes, or excluded. */
function checkFsPath(raw: unknown, grant: Json, access: 'read' | 'write'): string | undefined {
  const path = normalProjectPath(raw);
  if (path === undefined)
    return `path ${JSON.stringify(raw)} is not a project-relative path (absolute paths, "..", NUL and backslashes are refused)`;
  const prefixes = asSet(access === 'read' ? grant.read_prefixes : grant.write_prefixes) ?? [];
  if (!within(path, prefixes)) return `"${path}" is outside the grant's ${access} prefixes`;
  const excluded = fsExclusionOf(path, asSet(access === 'read' ? grant.read_exclude : grant.write_exclude) ?? []);
  if (excluded !== undefined) return `"${path}" is excluded from ${access === 'read' ? 'reading' : 'writing'} by "${excluded}"`;
  return undefined;
}

function checkFsWrite(params: Json, grant: Json): string | undefined {
  const op = params.op;
  if (typeof op !== 'string' || !FS_WRITE_OPS.includes(op)) return `op ${JSON.stringify(op)} is not one of ${FS_WRITE_OPS.join(', ')}`;
  if (op === 'move' && typeof params.to !== 'string') return 'a move needs "to"';
  if (op !== 'move' && params.to !== undefined && params.to !== null) return `"to" is only for a move`;
  if (op === 'write') {
    const hasRef = params.content_ref !== undefined && params.content_ref !== null;
    const hasContent = params.content !== undefined && params.content !== null;
    if (hasRef === hasContent) return 'a write needs exactly one of content_ref and content';
    if (hasContent && !(params.content instanceof Uint8Array && params.content.length === Number(params.size)))
      return 'size must be the length of content';
  }
  if (op === 'link' && typeof params.target !== 'string') return 'a link needs "target"';
  if (op === 'chmod' && typeof params.mode !== 'number' && typeof params.mode !== 'bigint') return 'a chmod needs "mode"';
  const misfit = checkFsPath(params.path, grant, 'write') ?? (op === 'move' ? checkFsPath(params.to, grant, 'write') : undefined);
  if (misfit !== undefined) return misfit;
  if (typeof grant.max_write_bytes === 'number' && Number(params.size) > grant.max_write_bytes)
    return `writing ${String(params.size)} bytes exceeds the grant's ${grant.max_write_bytes}`;
  return undefined;
}
