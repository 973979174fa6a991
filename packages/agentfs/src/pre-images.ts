import type { PreImage } from './accept.js';
import { hashContent, type EntryState } from './entry-state.js';
import { AgentFSError } from './errors.js';

const FORMAT = 'cairn-pre-images';
const VERSION = 1;

type EncodedState =
  | { kind: 'absent' }
  | { kind: 'dir'; mode: number }
  | { kind: 'file' | 'symlink'; mode: number; hash: string; content: string };

/**
 * Pre-images as durable bytes, so an accept can be undone by a later process: UTF-8 JSON
 * `{ "format": "cairn-pre-images", "version": 1, "images": [{ "path", "before", "after" }] }`, each state
 * `{ kind }`, `{ kind: "dir", mode }` or `{ kind: "file" | "symlink", mode, hash, content }` with the content
 * in base64 and its SHA-256 (hex) beside it.
 */
export function encodePreImages(preImages: readonly PreImage[]): Uint8Array {
  const images = preImages.map((image) => ({ path: image.path, before: encodeState(image.before), after: encodeState(image.after) }));
  return Buffer.from(JSON.stringify({ format: FORMAT, version: VERSION, images }), 'utf8');
}

/** Reads pre-images back; bytes that are not such a document, or whose content does not match its hash, are `ECORRUPT`. */
export function decodePreImages(bytes: Uint8Array): PreImage[] {
  let document: unknown;
  try {
    document = JSON.parse(Buffer.from(bytes).toString('utf8'));
  } catch (cause) {
    throw corrupt('they are not JSON', cause);
  }
  const doc = document as { format?: unknown; version?: unknown; images?: unknown };
  if (typeof doc !== 'object' || doc === null || doc.format !== FORMAT) throw corrupt(`the format is not "${FORMAT}"`);
  if (doc.version !== VERSION) throw corrupt(`version ${String(doc.version)} is not ${VERSION}`);
  if (!Array.isArray(doc.images)) throw corrupt('"images" is not a list');
  return doc.images.map((image: unknown, index: number) => {
    const i = image as { path?: unknown; before?: unknown; after?: unknown };
    if (typeof i?.path !== 'string') throw corrupt(`image ${index} has no path`);
    return { path: i.path, before: decodeState(i.before, index), after: decodeState(i.after, index) };
  });
}

function encodeState(state: EntryState): EncodedState {
  if (state.kind === 'absent') return { kind: 'absent' };
  if (state.kind === 'dir') return { kind: 'dir', mode: state.mode };
  return { kind: state.kind, mode: state.mode, hash: state.hash, content: state.content.toString('base64') };
}

function decodeState(value: unknown, index: number): EntryState {
  const v = value as Partial<EncodedState> | null;
  if (typeof v !== 'object' || v === null) throw corrupt(`image ${index} has a state that is not an object`);
  if (v.kind === 'absent') return { kind: 'absent' };
  if (typeof (v as { mode?: unknown }).mode !== 'number') throw corrupt(`image ${index} has a state without a mode`);
  const mode = (v as { mode: number }).mode;
  if (v.kind === 'dir') return { kind: 'dir', mode };
  if (v.kind !== 'file' && v.kind !== 'symlink') throw corrupt(`image ${index} has an unknown kind ${JSON.stringify(v.kind)}`);
  const encoded = v as { hash?: unknown; content?: unknown };
  if (typeof encoded.content !== 'string' || typeof encoded.hash !== 'string') throw corrupt(`image ${index} has no content or hash`);
  const content = Buffer.from(encoded.content, 'base64');
  if (hashContent(content) !== encoded.hash) throw corrupt(`image ${index}'s content does not match its hash`);
  return { kind: v.kind, mode, hash: encoded.hash, content };
}

function corrupt(why: string, cause?: unknown): AgentFSError {
  return new AgentFSError(
    'ECORRUPT',
    'decodePreImages',
    undefined,
    `the pre-images cannot be read: ${why}`,
    cause === undefined ? undefined : { cause },
  );
}
