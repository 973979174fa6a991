import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, parseBody, readBody, type ScriptedRequest, sendJson, watchClose } from './scripted-reply.js';

/** A tool call the scripted model makes: `{ name: 'Write', input: { file_path, content } }`. */
export interface AnthropicToolUse {
  name: string;
  input: Record<string, unknown>;
}

/** One turn of the scripted model: tool calls (after an optional text), or a final answer. */
export type AnthropicTurn = { toolUses: readonly AnthropicToolUse[]; text?: string } | { text: string };

/** A fake Anthropic Messages API on 127.0.0.1, as Claude Code speaks it, answering from a script. */
export interface ScriptedAnthropic {
  /** The base URL, without `/v1` (what `ANTHROPIC_BASE_URL` takes). */
  baseUrl: string;
  /** Every request received, side requests and `HEAD` probes included. */
  requests: ScriptedRequest[];
  /** The requests answered from the script, in order (one per turn). */
  turns: ScriptedRequest[];
  close(): Promise<void>;
}

// What a side request (a title, a summary, a subagent) is answered, without taking a turn of the script.
const SIDE_ANSWER = 'OK.';

type ContentBlock = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

// Names a request's purpose (`main`, `subagent`, `compaction`…); Claude Code sends it under CLAUDE_CODE_GATEWAY_HINT_HEADERS=1.
const REQUEST_CLASS = 'x-claude-code-request-class';

function isSideRequest(request: ScriptedRequest): boolean {
  const requestClass = request.headers[REQUEST_CLASS];
  if (typeof requestClass === 'string') return requestClass !== 'main';
  return !Array.isArray(request.body.tools) || request.body.tools.length === 0;
}

function lastTextTurn(script: readonly AnthropicTurn[]): AnthropicTurn {
  const found = [...script].reverse().find((turn) => !('toolUses' in turn));
  return found ?? { text: 'Done.' };
}

function countTokens(body: Record<string, unknown>): number {
  return Math.max(1, Math.ceil(JSON.stringify(body.messages ?? []).length / 4));
}

/**
 * Starts an HTTP server on 127.0.0.1 (port 0) that speaks the Anthropic Messages API as Claude Code uses it —
 * `POST /v1/messages` (server-sent events, or one JSON message when the request does not stream), `POST
 * /v1/messages/count_tokens`, `HEAD` probes — and answers each main request with the next turn of `script`
 * (past its end, the script's last text turn), or with a function of the request and its turn index. Side
 * requests (a `x-claude-code-request-class` other than `main`, or no tools) get a short text and take no turn.
 */
export async function startScriptedAnthropic(
  script: readonly AnthropicTurn[] | ((request: ScriptedRequest, index: number) => AnthropicTurn),
): Promise<ScriptedAnthropic> {
  const requests: ScriptedRequest[] = [];
  const turns: ScriptedRequest[] = [];
  let messages = 0;
  let toolUses = 0;

  function nextTurn(request: ScriptedRequest): AnthropicTurn {
    const index = turns.length;
    turns.push(request);
    if (typeof script === 'function') return script(request, index);
    return index < script.length ? script[index]! : lastTextTurn(script);
  }

  function contentOf(turn: AnthropicTurn): ContentBlock[] {
    const calls = 'toolUses' in turn && turn.toolUses.length > 0;
    const blocks: ContentBlock[] = calls && !turn.text ? [] : [{ type: 'text', text: turn.text ?? '' }];
    if ('toolUses' in turn)
      for (const use of turn.toolUses) {
        toolUses++;
        blocks.push({ type: 'tool_use', id: `toolu_cairn${String(toolUses).padStart(6, '0')}`, name: use.name, input: use.input });
      }
    return blocks;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseBody(await readBody(req));
    const path = (req.url ?? '/').split('?')[0]!;
    const request: ScriptedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(request);
    watchClose(res, request);
    if (request.method === 'HEAD') {
      res.writeHead(200);
      res.end();
      return;
    }
    if (path === '/v1/messages/count_tokens') return sendJson(res, 200, { input_tokens: countTokens(body) });
    if (path !== '/v1/messages' || request.method !== 'POST')
      return sendJson(res, 404, { type: 'error', error: { type: 'not_found_error', message: `no route ${request.method} ${path}` } });
    const turn = isSideRequest(request) ? { text: SIDE_ANSWER } : nextTurn(request);
    const content = contentOf(turn);
    const stopReason = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
    messages++;
    const message = {
      id: `msg_cairn${String(messages).padStart(6, '0')}`,
      type: 'message',
      role: 'assistant',
      model: String(body.model ?? 'claude'),
      stop_sequence: null,
    };
    const usage = { input_tokens: countTokens(body), output_tokens: Math.max(1, Math.ceil(JSON.stringify(content).length / 4)) };
    if (body.stream !== true) return sendJson(res, 200, { ...message, content, stop_reason: stopReason, usage });
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const event = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    event('message_start', { message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } } });
    for (const [index, block] of content.entries()) {
      const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
      event('content_block_start', { index, content_block: start });
      const pieces = (block.type === 'text' ? block.text : JSON.stringify(block.input)).match(/[\s\S]{1,24}/g) ?? [];
      for (const piece of pieces) {
        if (res.destroyed) return;
        const delta = block.type === 'text' ? { type: 'text_delta', text: piece } : { type: 'input_json_delta', partial_json: piece };
        event('content_block_delta', { index, delta });
      }
      event('content_block_stop', { index });
    }
    event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    event('message_stop', {});
    res.end();
  }

  const { port, close } = await listenOnLoopback(handle);
  return { baseUrl: `http://127.0.0.1:${port}`, requests, turns, close };
}
