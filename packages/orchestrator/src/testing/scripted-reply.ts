import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One scripted answer of a fake model server. */
export type ScriptedReply =
  /** A model's answer; streamed in small chunks when the client streams. */
  | {
      kind: 'answer';
      text: string;
      doneReason?: 'stop' | 'length';
      /** The prompt count the server reports (default: the prompt's characters / 4, cut at the window). */
      promptTokens?: number;
      completionTokens?: number;
      headerDelayMs?: number;
      chunkDelayMs?: number;
      /** Answered as one JSON completion even when the client asked for a stream (as some servers do). */
      unstreamed?: boolean;
    }
  /** An HTTP error with a JSON body, as the server sends them, and any headers (`Retry-After`). */
  | { kind: 'status'; status: number; body: unknown; headers?: Record<string, string> }
  /** The connection closes in the middle of the answer. */
  | { kind: 'drop' }
  /** The connection is reset before anything is answered (a kept-alive connection the server had just closed). */
  | { kind: 'reset' }
  /** The answer is not JSON. */
  | { kind: 'malformed' }
  /** Headers are never sent. */
  | { kind: 'hang' }
  /** The answer starts, then no more chunk ever comes (the connection stays open). */
  | { kind: 'stall'; text?: string };

/** A request the server received. */
export interface ScriptedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  /** Set once the client closed the connection before the answer ended (an aborted request). */
  closedEarly?: boolean;
}

/** A good answer holding a program in a fenced block. */
export function programAnswer(code: string, lang: 'js' | 'python' = 'js'): ScriptedReply {
  return { kind: 'answer', text: `Here is the program:\n\n\`\`\`${lang}\n${code}\n\`\`\`\n` };
}

/** The characters of a chat's messages, as a stand-in server counts its prompt (4 per token). */
export function promptCount(body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? (body.messages as { content?: unknown }[]) : [];
  const chars = messages.reduce((n, m) => n + String(m?.content ?? '').length, 0) + String(body.prompt ?? '').length;
  return Math.max(1, Math.ceil(chars / 4));
}

/** Sends a JSON answer. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

/** Reads a request's body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => resolve(text));
    req.on('error', () => resolve(text));
  });
}

/** Parses a JSON body; an unreadable one is `{}`. */
export function parseBody(text: string): Record<string, unknown> {
  try {
    const value = text === '' ? {} : (JSON.parse(text) as unknown);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** Marks `request` as closed early when its connection closes before `res` ended (the client aborted it). */
export function watchClose(res: ServerResponse, request: ScriptedRequest): void {
  res.on('close', () => {
    if (!res.writableFinished) request.closedEarly = true;
  });
}

/** Resolves after `ms`. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** An HTTP server on 127.0.0.1 (a free port) running `handle` for each request; `close` also drops open connections. */
export async function listenOnLoopback(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
