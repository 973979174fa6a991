import type { CborValue } from './cbor-value.js';
import { type AirDiagnostic, type AirResult, diagnostic } from './diagnostic.js';
import { encodeNode } from './node-hash.js';
import { type ValidatedManifest, validateManifest } from './validate.js';

/** The file access the store needs; `@cairn/air/node` implements it on the local disk. */
export interface AirFiles {
  /** Names of the entries of a directory (files and subdirectories), or undefined if it does not exist. */
  list(dir: string): string[] | undefined;
  isDirectory(path: string): boolean;
  readText(path: string): string | undefined;
  writeBytes(path: string, bytes: Uint8Array): void;
  join(...parts: string[]): string;
}

/** A diagnostic found while loading a directory (its `file` says where). */
export type FileDiagnostic = AirDiagnostic;

export const MANIFEST_FILE = 'manifest.air.json';
const DEFINITION_FILE = /\.air\.json$/;

/**
 * Loads a manifest directory: `manifest.air.json` and every other `*.air.json` file below the directory
 * (each holding one definition or an array of them; `.store` is skipped), then validates the whole (with the
 * built-in `sys/*` definitions) and resolves every name to its hash.
 */
export function loadManifestDir(files: AirFiles, dir: string): AirResult<ValidatedManifest> {
  const problems: FileDiagnostic[] = [];
  const manifestText = files.readText(files.join(dir, MANIFEST_FILE));
  if (manifestText === undefined)
    return { ok: false, diagnostics: [{ ...diagnostic('store.no-manifest', `no ${MANIFEST_FILE} in ${dir}`, ''), file: MANIFEST_FILE }] };
  const manifest = parseJson(manifestText, MANIFEST_FILE, problems);
  const definitions: unknown[] = [];
  const origins: string[] = [];
  for (const file of definitionFiles(files, dir, '')) {
    const json = parseJson(files.readText(files.join(dir, file)) ?? '', file, problems);
    if (json === undefined) continue;
    for (const node of Array.isArray(json) ? json : [json]) {
      definitions.push(node);
      origins.push(file);
    }
  }
  if (manifest === undefined) return { ok: false, diagnostics: problems };
  const result = validateManifest(manifest, definitions);
  if (!result.ok) {
    const located = result.diagnostics.map((d) => ({ ...d, ...fileOf(d, definitions, origins) }));
    return { ok: false, diagnostics: [...problems, ...located] };
  }
  return problems.length > 0 ? { ok: false, diagnostics: problems } : result;
}

/** Writes every definition of the world that is not built in, and the manifest, as node bytes: `.store/nodes/sha256/<hex>`, plus `manifest.air.cbor`. */
export function writeManifestStore(files: AirFiles, dir: string, loaded: ValidatedManifest): string[] {
  const written: string[] = [];
  const write = (node: unknown, hash: string) => {
    const path = files.join(dir, '.store', 'nodes', 'sha256', hash.slice('sha256:'.length));
    files.writeBytes(path, encodeNode(node as CborValue));
    written.push(path);
  };
  for (const kind of ['defschema', 'defmodule', 'defplan', 'defcap', 'defpolicy'] as const) {
    for (const entry of loaded.world.all(kind)) if (!entry.builtin) write(entry.node, entry.hash);
  }
  write(loaded.manifest, loaded.manifestHash);
  files.writeBytes(files.join(dir, 'manifest.air.cbor'), encodeNode(loaded.manifest as unknown as CborValue));
  written.push(files.join(dir, 'manifest.air.cbor'));
  return written;
}

function definitionFiles(files: AirFiles, root: string, rel: string): string[] {
  const out: string[] = [];
  for (const name of [...(files.list(files.join(root, rel)) ?? [])].sort()) {
    if (name === '.store' || name === 'node_modules') continue;
    const child = rel === '' ? name : `${rel}/${name}`;
    if (files.isDirectory(files.join(root, child))) out.push(...definitionFiles(files, root, child));
    else if (DEFINITION_FILE.test(name) && child !== MANIFEST_FILE) out.push(child);
  }
  return out;
}

/** Parses a definition file (a leading byte-order mark is allowed); a syntax error is reported at its line and column. */
function parseJson(text: string, file: string, problems: FileDiagnostic[]): unknown {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(source);
  } catch (error) {
    const message = (error as Error).message;
    const at = /at position (\d+)/.exec(message);
    const where = at === null ? '' : `:${lineAndColumn(source, Number(at[1]))}`;
    problems.push({ ...diagnostic('store.json', `${file}${where} is not valid JSON: ${message}`, ''), file });
    return undefined;
  }
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset);
  const line = before.split('\n').length;
  return `${line}:${offset - before.lastIndexOf('\n')}`;
}

/** The file a diagnostic belongs to: the definition it names, else the manifest. */
function fileOf(d: AirDiagnostic, definitions: readonly unknown[], origins: readonly string[]): { file: string } {
  if (d.name === undefined) return { file: MANIFEST_FILE };
  const index = definitions.findIndex((node) => typeof node === 'object' && node !== null && (node as { name?: unknown }).name === d.name);
  return index >= 0 ? { file: origins[index]! } : { file: MANIFEST_FILE };
}
