import type { PreImage } from './accept.js';
import { type EntryState, hashContent } from './entry-state.js';
import { AgentFSError } from './errors.js';

const FORMAT = 'cairn-pre-images';
/** Written now: a JSON header line, then the contents as raw bytes. Version 1 (one JSON document, contents in base64) is still read. */
const VERSION = 2;

type HeaderState =
  | { kind: 'absent' }
  | { kind: 'dir'; mode: number }
  | { kind: 'file' | 'symlink'; mode: number; hash: string; length: number };

/** Version 1's states: the content in base64 inside the JSON. */
type InlineState =
  | { kind: 'absent' }
  | { kind: 'dir'; mode: number }
  | { kind: 'file' | 'symlink'; mode: number; hash: string; content: string };

/**
 * Pre-images as durable bytes, so an accept can be undone by a later process. A UTF-8 JSON header line
 * `{ "format": "cairn-pre-images", "version": 2, "images": [{ "path", "before", "after" }] }` and a newline, then
 * the bytes of every file and symlink state one after another, in the order the header lists them. Each state is
 * `{ kind }`, `{ kind: "dir", mode }` or `{ kind: "file" | "symlink", mode, hash, length }`, with the SHA-256 (hex)
 * of its bytes and their length. No base64 and no escaping: an accept of many files writes little more than the
 * files themselves.
 */
export function encodePreImages(preImages: readonly PreImage[]): Uint8Array {
  const contents: Buffer[] = [];
  const header = (state: EntryState): HeaderState => {
    if (state.kind === 'absent') return { kind: 'absent' };
    if (state.kind === 'dir') return { kind: 'dir', mode: state.mode };
    contents.push(state.content);
    return { kind: state.kind, mode: state.mode, hash: state.hash, length: state.content.length };
  };
  const images = preImages.map((image) => ({ path: image.path, before: header(image.before), after: header(image.after) }));
  contents.unshift(Buffer.from(`${JSON.stringify({ format: FORMAT, version: VERSION, images })}\n`, 'utf8'));
  return Buffer.concat(contents);
}

/** Reads pre-images back (either version); bytes that are not such a document, or whose content does not match its hash, are `ECORRUPT`. */
export function decodePreImages(bytes: Uint8Array): PreImage[] {
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const newline = all.indexOf(10);
  let document: unknown;
  try {
    document = JSON.parse(all.toString('utf8', 0, newline < 0 ? all.length : newline));
  } catch (cause) {
    throw corrupt('they are not JSON', cause);
  }
  const doc = document as { format?: unknown; version?: unknown; images?: unknown };
  if (typeof doc !== 'object' || doc === null || doc.format !== FORMAT) throw corrupt(`the format is not "${FORMAT}"`);
  if (doc.version !== 1 && doc.version !== VERSION) throw corrupt(`version ${String(doc.version)} is neither 1 nor ${VERSION}`);
  if (!Array.isArray(doc.images)) throw corrupt('"images" is not a list');
  let offset = newline + 1;
  const contentOf = (v: { length?: unknown; content?: unknown }, index: number): Buffer => {
    if (doc.version === 1) {
      if (typeof v.content !== 'string') throw corrupt(`image ${index} has no content`);
      return Buffer.from(v.content, 'base64');
    }
    if (typeof v.length !== 'number' || !Number.isSafeInteger(v.length) || v.length < 0 || offset + v.length > all.length)
      throw corrupt(`image ${index} has a length that does not fit the bytes`);
    offset += v.length;
    return Buffer.from(all.subarray(offset - v.length, offset));
  };
  const images = doc.images.map((image: unknown, index: number) => {
    const i = image as { path?: unknown; before?: unknown; after?: unknown };
    if (typeof i?.path !== 'string') throw corrupt(`image ${index} has no path`);
    return { path: i.path, before: decodeState(i.before, index, contentOf), after: decodeState(i.after, index, contentOf) };
  });
  if (doc.version === VERSION && offset !== all.length) throw corrupt('bytes follow the last image');
  return images;
}

function decodeState(
  value: unknown,
  index: number,
  contentOf: (v: { length?: unknown; content?: unknown }, index: number) => Buffer,
): EntryState {
  const v = value as Partial<HeaderState | InlineState> | null;
  if (typeof v !== 'object' || v === null) throw corrupt(`image ${index} has a state that is not an object`);
  if (v.kind === 'absent') return { kind: 'absent' };
  if (typeof (v as { mode?: unknown }).mode !== 'number') throw corrupt(`image ${index} has a state without a mode`);
  const mode = (v as { mode: number }).mode;
  if (v.kind === 'dir') return { kind: 'dir', mode };
  if (v.kind !== 'file' && v.kind !== 'symlink') throw corrupt(`image ${index} has an unknown kind ${JSON.stringify(v.kind)}`);
  const hash = (v as { hash?: unknown }).hash;
  if (typeof hash !== 'string') throw corrupt(`image ${index} has no hash`);
  const content = contentOf(v as { length?: unknown; content?: unknown }, index);
  if (hashContent(content) !== hash) throw corrupt(`image ${index}'s content does not match its hash`);
  return { kind: v.kind, mode, hash, content };
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
