import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One scripted answer of the fake model server. */
export type ScriptedReply =
  /** A model's answer; streamed in small chunks when the client streams. */
  | {
      kind: 'answer';
      text: string;
      doneReason?: 'stop' | 'length';
      promptTokens?: number;
      completionTokens?: number;
      headerDelayMs?: number;
      chunkDelayMs?: number;
    }
  /** An HTTP error with a JSON body, as Ollama sends them (`404 {"error":"model \"x\" not found, try pulling it first"}`). */
  | { kind: 'status'; status: number; body: unknown }
  /** The connection closes in the middle of the answer. */
  | { kind: 'drop' }
  /** The answer is not JSON. */
  | { kind: 'malformed' }
  /** Headers are never sent. */
  | { kind: 'hang' };

/** A request the server received. */
export interface ScriptedRequest {
  method: string;
  path: string;
  body: Record<string, unknown>;
}

/** A fake Ollama on 127.0.0.1: real HTTP, Ollama's API, scripted answers. */
export interface ScriptedOllama {
  host: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

/**
 * Starts an HTTP server on 127.0.0.1 (port 0) that speaks Ollama's API — `POST /api/chat` and
 * `/api/generate` (streaming NDJSON or `stream: false`), `GET /api/tags`, `POST /api/show`, `GET /api/version` —
 * and answers model calls from `script` in order (the last one repeats), or from a function of the request.
 */
export async function startScriptedOllama(
  script: readonly ScriptedReply[] | ((request: ScriptedRequest, index: number) => ScriptedReply),
  models: readonly string[] = ['qwen2.5-coder:7b'],
): Promise<ScriptedOllama> {
  const requests: ScriptedRequest[] = [];
  const sockets = new Set<Socket>();
  let calls = 0;
  const server = createServer((req, res) => {
    void handle(req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const text = await readBody(req);
    let body: Record<string, unknown> = {};
    try {
      body = text === '' ? {} : (JSON.parse(text) as Record<string, unknown>);
    } catch {
      body = {};
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const request = { method: req.method ?? 'GET', path, body };
    requests.push(request);
    if (path === '/api/version') return json(res, 200, { version: '0.6.0' });
    if (path === '/api/tags')
      return json(res, 200, {
        models: models.map((name) => ({
          name,
          model: name,
          size: 4_700_000_000,
          digest: 'sha256:' + '0'.repeat(64),
          modified_at: '2026-01-01T00:00:00Z',
          details: {},
        })),
      });
    if (path === '/api/show') {
      const name = String(body.model ?? body.name ?? '');
      return models.includes(name)
        ? json(res, 200, { modelfile: '', parameters: '', template: '', details: {} })
        : json(res, 404, { error: `model "${name}" not found, try pulling it first` });
    }
    if (path !== '/api/chat' && path !== '/api/generate') return json(res, 404, { error: `no route ${path}` });
    const reply = typeof script === 'function' ? script(request, calls) : script[Math.min(calls, script.length - 1)]!;
    calls++;
    const model = String(body.model ?? '');
    if (reply.kind === 'hang') return;
    if (reply.kind === 'status') return json(res, reply.status, reply.body);
    if (reply.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"model": "x", "message": {"content": ');
      return;
    }
    const answer = reply.kind === 'answer' ? reply : { kind: 'answer' as const, text: 'partial answer that never ends', chunkDelayMs: 0 };
    if (answer.headerDelayMs !== undefined) await sleep(answer.headerDelayMs);
    const chat = path === '/api/chat';
    const final = {
      model,
      created_at: new Date().toISOString(),
      done: true,
      done_reason: answer.doneReason ?? 'stop',
      total_duration: 1_000_000,
      prompt_eval_count: answer.promptTokens ?? 120,
      eval_count: answer.completionTokens ?? Math.max(1, Math.ceil(answer.text.length / 4)),
    };
    if (body.stream === false) {
      if (reply.kind === 'drop') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"model":');
        res.socket?.destroy();
        return;
      }
      return json(
        res,
        200,
        chat ? { ...final, message: { role: 'assistant', content: answer.text } } : { ...final, response: answer.text },
      );
    }
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    const chunks = answer.text.match(/[\s\S]{1,24}/g) ?? [];
    for (const [index, chunk] of chunks.entries()) {
      if (reply.kind === 'drop' && index === 1) {
        res.socket?.destroy();
        return;
      }
      const line = chat
        ? { model, created_at: new Date().toISOString(), message: { role: 'assistant', content: chunk }, done: false }
        : { model, created_at: new Date().toISOString(), response: chunk, done: false };
      res.write(JSON.stringify(line) + '\n');
      if (answer.chunkDelayMs) await sleep(answer.chunkDelayMs);
    }
    res.end(JSON.stringify(chat ? { ...final, message: { role: 'assistant', content: '' } } : { ...final, response: '' }) + '\n');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    host: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A good answer holding a program in a fenced block. */
export function programAnswer(code: string, lang: 'js' | 'python' = 'js'): ScriptedReply {
  return { kind: 'answer', text: `Here is the program:\n\n\`\`\`${lang}\n${code}\n\`\`\`\n` };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk: Buffer) => (text += chunk.toString()));
    req.on('end', () => resolve(text));
    req.on('error', () => resolve(text));
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
