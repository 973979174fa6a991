import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  listenOnLoopback,
  parseBody,
  programAnswer,
  promptCount,
  readBody,
  type ScriptedReply,
  type ScriptedRequest,
  sendJson,
  sleep,
  watchClose,
} from './scripted-reply.js';

export { programAnswer, type ScriptedReply, type ScriptedRequest };

/** A fake Ollama on 127.0.0.1: real HTTP, Ollama's API, scripted answers. */
export interface ScriptedOllama {
  host: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

/** Options of `startScriptedOllama`. */
export interface ScriptedOllamaOptions {
  /** What `/api/show` gives as `model_info["<arch>.context_length"]` (default 32,768; null: none). */
  contextLength?: number | null;
}

/** The window Ollama uses when a request states none: the front of a longer prompt is dropped. */
const OLLAMA_DEFAULT_WINDOW = 2048;

/**
 * Starts an HTTP server on 127.0.0.1 (port 0) that speaks Ollama's API — `POST /api/chat` and
 * `/api/generate` (streaming NDJSON or `stream: false`), `GET /api/tags`, `POST /api/show` (with the model's
 * context length), `GET /api/version` — and answers model calls from `script` in order (the last one
 * repeats), or from a function of the request. Its prompt counts behave as Ollama's: the prompt's size, cut
 * at the window the request states (`num_ctx`), or at 2,048 when it states none.
 */
export async function startScriptedOllama(
  script: readonly ScriptedReply[] | ((request: ScriptedRequest, index: number) => ScriptedReply),
  models: readonly string[] = ['qwen2.5-coder:7b'],
  options: ScriptedOllamaOptions = {},
): Promise<ScriptedOllama> {
  const requests: ScriptedRequest[] = [];
  let calls = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseBody(await readBody(req));
    const path = (req.url ?? '/').split('?')[0]!;
    const request: ScriptedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(request);
    watchClose(res, request);
    if (path === '/api/version') return sendJson(res, 200, { version: '0.6.0' });
    if (path === '/api/tags')
      return sendJson(res, 200, {
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
      const context = options.contextLength === undefined ? 32_768 : options.contextLength;
      return models.includes(name)
        ? sendJson(res, 200, {
            modelfile: '',
            parameters: '',
            template: '',
            details: { family: 'qwen2' },
            model_info: { 'general.architecture': 'qwen2', ...(context === null ? {} : { 'qwen2.context_length': context }) },
          })
        : sendJson(res, 404, { error: `model "${name}" not found, try pulling it first` });
    }
    if (path !== '/api/chat' && path !== '/api/generate') return sendJson(res, 404, { error: `no route ${path}` });
    const reply = typeof script === 'function' ? script(request, calls) : script[Math.min(calls, script.length - 1)]!;
    calls++;
    const model = String(body.model ?? '');
    if (reply.kind === 'hang') return;
    if (reply.kind === 'reset') return void res.socket?.resetAndDestroy();
    if (reply.kind === 'status') return sendJson(res, reply.status, reply.body, reply.headers);
    if (reply.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"model": "x", "message": {"content": ');
      return;
    }
    const answer =
      reply.kind === 'answer'
        ? reply
        : {
            kind: 'answer' as const,
            text: reply.kind === 'stall' ? (reply.text ?? 'an answer that stops here') : 'partial answer that never ends',
            chunkDelayMs: 0,
          };
    if (answer.headerDelayMs !== undefined) await sleep(answer.headerDelayMs);
    const chat = path === '/api/chat';
    const window = Number((body.options as { num_ctx?: unknown } | undefined)?.num_ctx ?? OLLAMA_DEFAULT_WINDOW);
    const final = {
      model,
      created_at: new Date().toISOString(),
      done: true,
      done_reason: answer.doneReason ?? 'stop',
      total_duration: 1_000_000,
      prompt_eval_count: answer.promptTokens ?? Math.min(promptCount(body), window),
      eval_count: answer.completionTokens ?? Math.max(1, Math.ceil(answer.text.length / 4)),
    };
    if (body.stream === false) {
      if (reply.kind === 'drop') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"model":');
        res.socket?.destroy();
        return;
      }
      return sendJson(
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
      if (reply.kind === 'stall' && index === 1) return;
      if (res.destroyed) return;
      const line = chat
        ? { model, created_at: new Date().toISOString(), message: { role: 'assistant', content: chunk }, done: false }
        : { model, created_at: new Date().toISOString(), response: chunk, done: false };
      res.write(JSON.stringify(line) + '\n');
      if (answer.chunkDelayMs) await sleep(answer.chunkDelayMs);
    }
    if (reply.kind === 'stall') return;
    res.end(JSON.stringify(chat ? { ...final, message: { role: 'assistant', content: '' } } : { ...final, response: '' }) + '\n');
  }

  const { port, close } = await listenOnLoopback(handle);
  return {
    host: `http://127.0.0.1:${port}`,
    requests,
    close,
  };
}
