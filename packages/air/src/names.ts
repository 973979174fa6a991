import { type AirDiagnostic, diagnostic } from './diagnostic.js';
import { type Hash, isHash } from './node-hash.js';

/** A definition name `namespace/name@version`. */
export type AirName = string & { readonly __airName: true };

/** The parts of a name. */
export interface NameParts {
  namespace: string;
  name: string;
  version: number;
}

const NAME = /^([a-z][a-z0-9._-]*)\/([A-Za-z][A-Za-z0-9._-]*)@([1-9][0-9]{0,8})$/;

/** Splits a name, or explains what is wrong with it. */
export function parseName(text: unknown, path = ''): { ok: true; value: NameParts } | { ok: false; diagnostic: AirDiagnostic } {
  if (typeof text !== 'string')
    return { ok: false, diagnostic: diagnostic('name.type', 'a name must be a string like "com.acme/Point@1"', path) };
  const match = NAME.exec(text);
  if (match === null) {
    const why = !text.includes('/')
      ? 'it has no namespace ("namespace/name@N")'
      : !text.includes('@')
        ? 'it has no version ("@N")'
        : /@0|@-|@$/.test(text) || !/@[0-9]+$/.test(text)
          ? 'its version must be a positive integer'
          : 'the namespace must be lower case ([a-z][a-z0-9._-]*) and the name must start with a letter';
    return { ok: false, diagnostic: diagnostic('name.invalid', `"${text}" is not a valid name: ${why}`, path) };
  }
  return { ok: true, value: { namespace: match[1]!, name: match[2]!, version: Number(match[3]) } };
}

/** True when `text` is a valid name. */
export function isName(text: unknown): text is AirName {
  return typeof text === 'string' && NAME.test(text);
}

/** A reference to a definition: by name, or by content hash. */
export type AirRef = { by: 'name'; name: AirName } | { by: 'hash'; hash: Hash };

/** Parses a reference (`namespace/name@N` or `sha256:HEX`). */
export function parseRef(text: unknown, path = ''): { ok: true; value: AirRef } | { ok: false; diagnostic: AirDiagnostic } {
  if (isHash(text)) return { ok: true, value: { by: 'hash', hash: text } };
  if (typeof text === 'string' && text.startsWith('sha256:')) {
    return {
      ok: false,
      diagnostic: diagnostic('ref.hash', `"${text}" is not a content hash: expected sha256: and 64 lowercase hex digits`, path),
    };
  }
  const name = parseName(text, path);
  return name.ok ? { ok: true, value: { by: 'name', name: text as AirName } } : name;
}
