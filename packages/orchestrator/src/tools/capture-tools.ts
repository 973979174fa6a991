import { performWrite } from '../run/fs-effects.js';
import type { RunContext } from '../run/run-context.js';
import { fsCall, requireString, ToolError, writeCall } from './tool-calls.js';
import type { ToolParam, ToolSpec } from './tool-spec.js';

const TRUE = { js: 'true', py: 'bool' };
const path: ToolParam = { name: 'path', type: 'string' };

/**
 * The tools of a capture program: the program Cairn writes from what an agent CLI wrote in its view (see
 * `exec-capture.ts`), so every change becomes a governed, journaled effect that a replay runs again. Bytes
 * come from the agent's blob store by hash; modes and links travel as they are. No model is offered these.
 */
export const CAPTURE_TOOLS: readonly ToolSpec[] = [
  {
    name: 'put_file',
    params: [path, { name: 'content_ref', type: 'string' }, { name: 'size', type: 'number' }, { name: 'mode', type: 'number' }],
    returns: TRUE,
    doc: 'Capture only: a file of the bytes kept under content_ref, with its mode.',
    audience: 'capture',
    handler: (ctx) => (p, ref, size, mode) => {
      const contentRef = requireString(ref, 'put_file', 'content_ref');
      const bytes = wholeNumber(size, 'put_file', 'size');
      const bits = wholeNumber(mode, 'put_file', 'mode');
      return fsCall(ctx, 'put_file', p, 'entry', true, (at) => [
        'fs.write',
        { op: 'write', path: at, size: bytes, content_ref: contentRef, mode: bits },
        () => performWrite(ctx.view, { op: 'write', path: at, content: contentOf(ctx, contentRef), mode: bits }),
        () => true,
      ]);
    },
  },
  {
    name: 'put_link',
    params: [path, { name: 'target', type: 'string' }],
    returns: TRUE,
    doc: 'Capture only: a symbolic link to target.',
    audience: 'capture',
    handler: (ctx) => (p, to) => {
      const target = requireString(to, 'put_link', 'target');
      return fsCall(ctx, 'put_link', p, 'entry', true, (at) => [
        'fs.write',
        { op: 'link', path: at, size: 0, target },
        () => performWrite(ctx.view, { op: 'link', path: at, target }),
        () => true,
      ]);
    },
  },
  {
    name: 'make_dir',
    params: [path, { name: 'mode', type: 'number' }],
    returns: TRUE,
    doc: 'Capture only: a folder with its mode.',
    audience: 'capture',
    handler: (ctx) => (p, mode) => {
      const bits = wholeNumber(mode, 'make_dir', 'mode');
      return fsCall(ctx, 'make_dir', p, 'entry', true, (at) => writeCall(ctx, { op: 'mkdir', path: at, mode: bits }, { mode: bits }));
    },
  },
  {
    name: 'set_mode',
    params: [path, { name: 'mode', type: 'number' }],
    returns: TRUE,
    doc: "Capture only: a file's or folder's mode.",
    audience: 'capture',
    handler: (ctx) => (p, mode) => {
      const bits = wholeNumber(mode, 'set_mode', 'mode');
      return fsCall(ctx, 'set_mode', p, 'entry', false, (at) => writeCall(ctx, { op: 'chmod', path: at, mode: bits }, { mode: bits }));
    },
  },
];

function contentOf(ctx: RunContext, ref: string): Uint8Array {
  try {
    return ctx.blobs.get(ref);
  } catch {
    throw new ToolError(`put_file: no bytes are kept under ${ref}`);
  }
}

function wholeNumber(value: unknown, tool: string, name: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0)
    throw new ToolError(`${tool}: ${name} must be a whole number`);
  return value;
}
