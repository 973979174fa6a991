import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  listenOnLoopback,
  parseBody,
  promptCount,
  readBody,
  type ScriptedReply,
  type ScriptedRequest,
  sendJson,
  sleep,
  watchClose,
} from './scripted-reply.js';

/** A fake OpenAI-compatible server on 127.0.0.1: real HTTP, the chat-completions API, scripted answers. */
export interface ScriptedOpenAi {
  /** The base URL, `/v1` included (what `OPENAI_BASE_URL` takes). */
  baseUrl: string;
  requests: ScriptedRequest[];
  close(): Promise<void>;
}

/** Options of `startScriptedOpenAi`. */
export interface ScriptedOpenAiOptions {
  /** The key the server accepts (`Authorization: Bearer …`); any key, or none, when absent. */
  apiKey?: string;
  /** The context length `/v1/models` gives for each model (as vLLM's `max_model_len` and llama-server's `meta.n_ctx_train`); none when absent. */
  contextLength?: number;
}

/**
 * Starts an HTTP server on 127.0.0.1 (port 0) that speaks the OpenAI chat-completions API as llama-server,
 * vLLM or LM Studio do — `POST /v1/chat/completions` (server-sent events, or one JSON answer), `GET
 * /v1/models` — and answers chats from `script` in order (the last one repeats), or from a function of the
 * request. A wrong key is a 401, an unknown model a 404, each with the error body those servers send.
 */
export async function startScriptedOpenAi(
  script: readonly ScriptedReply[] | ((request: ScriptedRequest, index: number) => ScriptedReply),
  models: readonly string[] = ['qwen2.5-coder-7b'],
  options: ScriptedOpenAiOptions = {},
): Promise<ScriptedOpenAi> {
  const requests: ScriptedRequest[] = [];
  let calls = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseBody(await readBody(req));
    const path = (req.url ?? '/').split('?')[0]!;
    const request: ScriptedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(request);
    watchClose(res, request);
    if (options.apiKey !== undefined && req.headers.authorization !== `Bearer ${options.apiKey}`)
      return sendJson(res, 401, {
        error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
      });
    if (path === '/v1/models')
      return sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({
          id,
          object: 'model',
          created: 1_767_225_600,
          owned_by: 'cairn-test',
          ...(options.contextLength === undefined
            ? {}
            : { max_model_len: options.contextLength, meta: { n_ctx_train: options.contextLength } }),
        })),
      });
    if (path !== '/v1/chat/completions') return sendJson(res, 404, { error: { message: `no route ${path}`, type: 'not_found' } });
    const model = String(body.model ?? '');
    if (!models.includes(model))
      return sendJson(res, 404, {
        error: {
          message: `The model \`${model}\` does not exist.`,
          type: 'invalid_request_error',
          param: 'model',
          code: 'model_not_found',
        },
      });
    const reply = typeof script === 'function' ? script(request, calls) : script[Math.min(calls, script.length - 1)]!;
    calls++;
    if (reply.kind === 'hang') return;
    if (reply.kind === 'reset') return void res.socket?.resetAndDestroy();
    if (reply.kind === 'status') return sendJson(res, reply.status, reply.body, reply.headers);
    if (reply.kind === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id": "x", "choices": [');
      return;
    }
    const answer =
      reply.kind === 'answer'
        ? reply
        : {
            kind: 'answer' as const,
            text: reply.kind === 'stall' ? (reply.text ?? 'an answer that stops here') : 'partial answer that never ends',
          };
    if (answer.headerDelayMs !== undefined) await sleep(answer.headerDelayMs);
    const usage = {
      prompt_tokens: answer.promptTokens ?? promptCount(body),
      completion_tokens: answer.completionTokens ?? Math.max(1, Math.ceil(answer.text.length / 4)),
    };
    const finish = answer.doneReason ?? 'stop';
    const base = { id: 'chatcmpl-cairn', created: 1_767_225_600, model };
    if (body.stream !== true || (reply.kind === 'answer' && reply.unstreamed === true)) {
      if (reply.kind === 'drop') {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"id":');
        res.socket?.destroy();
        return;
      }
      return sendJson(res, 200, {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: answer.text }, finish_reason: finish }],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
      ...base,
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    event(chunk({ role: 'assistant', content: '' }, null));
    const pieces = answer.text.match(/[\s\S]{1,24}/g) ?? [];
    for (const [index, piece] of pieces.entries()) {
      if (reply.kind === 'drop' && index === 1) {
        res.socket?.destroy();
        return;
      }
      if (reply.kind === 'stall' && index === 1) return;
      if (res.destroyed) return;
      event(chunk({ content: piece }, null));
      if (answer.chunkDelayMs) await sleep(answer.chunkDelayMs);
    }
    if (reply.kind === 'stall') return;
    event(chunk({}, finish));
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
    if (streamOptions?.include_usage === true)
      event({
        ...base,
        object: 'chat.completion.chunk',
        choices: [],
        usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
      });
    res.end('data: [DONE]\n\n');
  }

  const { port, close } = await listenOnLoopback(handle);
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    close,
  };
}
