import type { ErrorObject, ValidateFunction } from 'ajv';
import { type AirDiagnostic, diagnostic } from './diagnostic.js';
import * as compiled from './json-schemas/validators.generated.js';

/** The kinds of AIR definition. */
export const KINDS = ['defschema', 'defmodule', 'defplan', 'defcap', 'defpolicy', 'manifest'] as const;
export type AirKind = (typeof KINDS)[number];

/** The validators of the kinds' schemas, compiled ahead of time (scripts/compile-schemas.mjs). */
const validators = compiled as unknown as Record<AirKind, ValidateFunction>;

/**
 * Checks a document against the JSON Schema of its kind (draft 2020-12, `spec/schemas/`), returning
 * diagnostics with JSON pointers. Failures inside alternatives are reported once, at the value that fits
 * none of them, rather than once per alternative tried.
 */
export function checkStructure(kind: AirKind, document: unknown, name?: string): AirDiagnostic[] {
  const validate = validators[kind];
  if (validate(document)) return [];
  return summarize(validate.errors ?? [], name);
}

function summarize(errors: readonly ErrorObject[], name?: string): AirDiagnostic[] {
  const extra = name === undefined ? {} : { name };
  const alternatives = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf').map((e) => e.instancePath);
  const out: AirDiagnostic[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    if (error.keyword === 'if') continue;
    const insideAlternative = alternatives.some((p) => error.instancePath === p || error.instancePath.startsWith(p + '/'));
    if (insideAlternative && error.keyword !== 'anyOf' && error.keyword !== 'oneOf') continue;
    const { code, message, path } = describeError(error);
    const key = `${code}|${path}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(diagnostic(code, message, path, extra));
  }
  return out;
}

function describeError(error: ErrorObject): { code: string; message: string; path: string } {
  const path = error.instancePath;
  const params = error.params as Record<string, unknown>;
  const title = (error.parentSchema as { title?: string } | undefined)?.title;
  switch (error.keyword) {
    case 'required':
      return {
        code: 'structure.missing-field',
        message: `missing required field "${String(params.missingProperty)}"`,
        path: `${path}/${String(params.missingProperty)}`,
      };
    case 'additionalProperties':
      return {
        code: 'structure.unknown-field',
        message: `unknown field "${String(params.additionalProperty)}"`,
        path: `${path}/${String(params.additionalProperty)}`,
      };
    case 'const':
      return { code: 'structure.value', message: `must be ${JSON.stringify(params.allowedValue)}`, path };
    case 'enum':
      return {
        code: 'structure.value',
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
        path,
      };
    case 'type':
      return { code: 'structure.type', message: `must be ${String(params.type)}`, path };
    case 'pattern':
      return {
        code: 'structure.format',
        message: `is not a valid ${title ?? 'value'}${title === 'name' ? ' (namespace/name@N)' : title === 'content hash' ? ' (sha256: and 64 lowercase hex digits)' : ''}`,
        path,
      };
    case 'anyOf':
    case 'oneOf':
      return { code: 'structure.shape', message: `is not a valid ${title ?? 'value'}`, path };
    case 'minItems':
      return { code: 'structure.size', message: `needs at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`, path };
    case 'uniqueItems':
      return { code: 'structure.duplicate', message: `items ${String(params.j)} and ${String(params.i)} are the same`, path };
    case 'minProperties':
    case 'maxProperties':
      return { code: 'structure.shape', message: `is not a valid ${title ?? 'object'} (${error.message ?? ''})`, path };
    default:
      return { code: 'structure.invalid', message: error.message ?? 'is invalid', path };
  }
}
