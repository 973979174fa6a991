/** One problem found in an AIR document: a stable code, a message a person can act on, and where. */
export interface AirDiagnostic {
  code: string;
  message: string;
  /** JSON pointer into the document (`/steps/2/params`), `` for the whole. */
  path: string;
  /** The definition the problem is in, when known. */
  name?: string;
  /** The plan step the problem is in, when known. */
  stepId?: string;
  /** The file the problem is in, when a directory was loaded. */
  file?: string;
}

/** A value, or every problem found while producing it. */
export type AirResult<T> = { ok: true; value: T } | { ok: false; diagnostics: AirDiagnostic[] };

/** Builds a diagnostic. */
export function diagnostic(code: string, message: string, path: string, extra: Pick<AirDiagnostic, 'name' | 'stepId'> = {}): AirDiagnostic {
  return { code, message, path, ...extra };
}

/** Appends one segment to a JSON pointer, escaping `~` and `/` (RFC 6901). */
export function pointer(base: string, segment: string | number): string {
  const text = String(segment);
  return text.includes('~') || text.includes('/') ? `${base}/${text.replace(/~/g, '~0').replace(/\//g, '~1')}` : `${base}/${text}`;
}
