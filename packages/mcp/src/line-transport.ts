import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { type JSONRPCMessage, JSONRPCMessageSchema } from '@modelcontextprotocol/sdk/types.js';

/** The largest message the server takes (bytes); a longer line is answered with an error, never buffered whole. */
export const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** How much of an oversized line's start and end is kept, to find its request id. */
const EDGE_BYTES = 4096;

/**
 * MCP's stdio transport (one JSON-RPC message per line), answering what a client gets wrong instead of dropping
 * it: a line that is not JSON gets a parse error (-32700), JSON that is not JSON-RPC an invalid-request error
 * (-32600, with its id when it has one), and a line over `maxBytes` an error naming the limit, sent to its
 * request's id when one can be read from the line's start or end. The session goes on after each.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while a line over the limit streams by: its start, its end so far, its length. */
  private oversized: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  private closed = false;
  private drained: Promise<void> | undefined;

  constructor(
    private readonly input: Readable,
    private readonly output: Writable,
    private readonly maxBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.once('end', this.onEnd);
    this.input.once('close', this.onEnd);
    this.input.on('error', this.onInputError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return;
    if (this.output.write(`${JSON.stringify(message)}\n`)) return;
    // one wait for the pipe to drain, shared by every message written meanwhile
    this.drained ??= new Promise<void>((resolve) =>
      this.output.once('drain', () => {
        this.drained = undefined;
        resolve();
      }),
    );
    await this.drained;
  }

  async close(): Promise<void> {
    this.onEnd();
  }

  private readonly onData = (chunk: Buffer | string): void => {
    const data = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    let start = 0;
    for (let newline = data.indexOf(10); newline !== -1; newline = data.indexOf(10, start)) {
      this.add(data.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < data.length) this.add(data.subarray(start));
  };

  private readonly onEnd = (): void => {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.onclose?.();
  };

  private readonly onInputError = (error: Error): void => {
    this.onerror?.(error);
  };

  private add(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.oversized !== undefined) {
      this.oversized.bytes += piece.length;
      this.oversized.tail = Buffer.concat([this.oversized.tail, piece]).subarray(-EDGE_BYTES);
      return;
    }
    this.pending.push(piece);
    this.pendingBytes += piece.length;
    if (this.pendingBytes > this.maxBytes) {
      const whole = Buffer.concat(this.pending);
      this.oversized = { head: whole.subarray(0, EDGE_BYTES), tail: whole.subarray(-EDGE_BYTES), bytes: whole.length };
      this.pending = [];
      this.pendingBytes = 0;
    }
  }

  private endLine(): void {
    if (this.oversized !== undefined) {
      const { head, tail, bytes } = this.oversized;
      this.oversized = undefined;
      const id = idIn(tail.toString('utf8')) ?? idIn(head.toString('utf8')) ?? null;
      void this.reply(
        id,
        -32600,
        `the message is ${bytes} bytes long, more than the ${this.maxBytes} bytes one message may be; nothing of it was done`,
      );
      return;
    }
    const line = Buffer.concat(this.pending).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      void this.reply(null, -32700, `parse error: the line is not JSON (${(error as Error).message})`);
      return;
    }
    const checked = JSONRPCMessageSchema.safeParse(parsed);
    if (!checked.success) {
      const id = (parsed as { id?: unknown } | null)?.id;
      const message = `invalid request: not a JSON-RPC 2.0 message (${checked.error.issues[0]?.message ?? 'unknown shape'})`;
      void this.reply(typeof id === 'string' || typeof id === 'number' ? id : null, -32600, message);
      return;
    }
    this.onmessage?.(checked.data);
  }

  private reply(id: string | number | null, code: number, message: string): Promise<void> {
    // JSON-RPC answers what cannot be read with a null id; the SDK's types want a string or number there
    return this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

/** The request id written in a piece of a JSON-RPC line (`"id":5` or `"id":"a"`), the last whole one in it. */
function idIn(text: string): string | number | undefined {
  const match = [...text.matchAll(/"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,200}")\s*[,}]/g)].at(-1);
  if (match === undefined) return undefined;
  return match[1]!.startsWith('"') ? (JSON.parse(match[1]!) as string) : Number(match[1]);
}
