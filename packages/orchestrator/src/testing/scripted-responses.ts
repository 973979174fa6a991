import type { IncomingMessage, ServerResponse } from 'node:http';
import { listenOnLoopback, parseBody, readBody, type ScriptedRequest, sendJson, watchClose } from './scripted-reply.js';

/**
 * A tool call the scripted model makes, with Codex's tools: a shell command, a patch (`*** Begin Patch` … `*** End
 * Patch`), any other function tool by name (an MCP server's tool in its namespace, as `tool_search` offered it), or a
 * search of the tools Codex keeps back (`tool_search`, which Codex answers itself).
 */
export type ResponsesCall =
  | { type: 'exec_command'; cmd: string; workdir?: string }
  | { type: 'apply_patch'; patch: string }
  | { type: 'function'; name: string; arguments: Record<string, unknown>; namespace?: string }
  | { type: 'tool_search'; query: string; limit?: number };

/** One turn of the scripted model: tool calls (after an optional text), or a final answer. */
export type ResponsesTurn = { calls: readonly ResponsesCall[]; text?: string } | { text: string };

/** A fake OpenAI Responses API on 127.0.0.1, as Codex speaks it, answering from a script. */
export interface ScriptedResponses {
  /** The base URL, `/v1` included (a Codex provider's `base_url`). */
  baseUrl: string;
  /** Every request received, side requests included. */
  requests: ScriptedRequest[];
  /** The requests answered from the script, in order (one per turn). */
  turns: ScriptedRequest[];
  close(): Promise<void>;
}

// What a side request (a compaction, a title) is answered, without taking a turn of the script.
const SIDE_ANSWER = 'OK.';

type OutputItem =
  | { type: 'message'; id: string; status: string; role: 'assistant'; content: { type: 'output_text'; text: string; annotations: [] }[] }
  | { type: 'function_call'; id: string; status: string; call_id: string; name: string; namespace?: string; arguments: string }
  | { type: 'custom_tool_call'; id: string; status: string; call_id: string; name: string; input: string }
  | { type: 'tool_search_call'; id: string; status: string; call_id: string; execution: 'client'; arguments: Record<string, unknown> };

// Codex's header describing a request: a JSON object whose `request_kind` is `turn` in the agent's loop.
const TURN_METADATA = 'x-codex-turn-metadata';

function isSideRequest(request: ScriptedRequest): boolean {
  if (!Array.isArray(request.body.tools) || request.body.tools.length === 0) return true;
  const metadata = parseBody(String(request.headers[TURN_METADATA] ?? ''));
  return typeof metadata.request_kind === 'string' && metadata.request_kind !== 'turn';
}

function lastTextTurn(script: readonly ResponsesTurn[]): ResponsesTurn {
  const found = [...script].reverse().find((turn) => !('calls' in turn));
  return found ?? { text: 'Done.' };
}

function countTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? []).length / 4));
}

/**
 * Starts an HTTP server on 127.0.0.1 (port 0) that speaks the OpenAI Responses API as Codex uses it — `POST
 * /v1/responses`, server-sent events (or one JSON response when the request does not stream) — and answers
 * each request of the agent's loop with the next turn of `script` (past its end, the script's last text turn),
 * or with a function of the request and its turn index. Side requests (no tools, as a compaction sends, or a
 * `request_kind` other than `turn`) get a short text and take no turn.
 */
export async function startScriptedResponses(
  script: readonly ResponsesTurn[] | ((request: ScriptedRequest, index: number) => ResponsesTurn),
): Promise<ScriptedResponses> {
  const requests: ScriptedRequest[] = [];
  const turns: ScriptedRequest[] = [];
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}_cairn${String(++ids).padStart(6, '0')}`;

  function nextTurn(request: ScriptedRequest): ResponsesTurn {
    const index = turns.length;
    turns.push(request);
    if (typeof script === 'function') return script(request, index);
    return index < script.length ? script[index]! : lastTextTurn(script);
  }

  function outputOf(turn: ResponsesTurn): OutputItem[] {
    const calls = 'calls' in turn ? turn.calls : [];
    const items: OutputItem[] =
      calls.length > 0 && !turn.text
        ? []
        : [
            {
              type: 'message',
              id: nextId('msg'),
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: turn.text ?? '', annotations: [] }],
            },
          ];
    for (const call of calls) {
      const prefix = call.type === 'apply_patch' ? 'ctc' : call.type === 'tool_search' ? 'tsc' : 'fc';
      const common = { id: nextId(prefix), status: 'completed', call_id: nextId('call') };
      if (call.type === 'exec_command') {
        const args = call.workdir === undefined ? { cmd: call.cmd } : { cmd: call.cmd, workdir: call.workdir };
        items.push({ type: 'function_call', ...common, name: 'exec_command', arguments: JSON.stringify(args) });
      } else if (call.type === 'function') {
        const namespace = call.namespace === undefined ? {} : { namespace: call.namespace };
        items.push({ type: 'function_call', ...common, name: call.name, ...namespace, arguments: JSON.stringify(call.arguments) });
      } else if (call.type === 'tool_search') {
        const args = call.limit === undefined ? { query: call.query } : { query: call.query, limit: call.limit };
        items.push({ type: 'tool_search_call', ...common, execution: 'client', arguments: args });
      } else items.push({ type: 'custom_tool_call', ...common, name: 'apply_patch', input: call.patch });
    }
    return items;
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = parseBody(await readBody(req));
    const path = (req.url ?? '/').split('?')[0]!;
    const request: ScriptedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
    requests.push(request);
    watchClose(res, request);
    if (path !== '/v1/responses' || request.method !== 'POST')
      return sendJson(res, 404, { error: { message: `no route ${request.method} ${path}`, type: 'invalid_request_error' } });
    const output = outputOf(isSideRequest(request) ? { text: SIDE_ANSWER } : nextTurn(request));
    const inputTokens = countTokens(body.input);
    const outputTokens = countTokens(output);
    const response = {
      id: nextId('resp'),
      object: 'response',
      created_at: 1_767_225_600,
      model: String(body.model ?? 'gpt-5.5'),
      status: 'completed',
      output,
      usage: {
        input_tokens: inputTokens,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens: outputTokens,
        output_tokens_details: { reasoning_tokens: 0 },
        total_tokens: inputTokens + outputTokens,
      },
    };
    if (body.stream !== true) return sendJson(res, 200, response);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let sequence = 0;
    const event = (type: string, data: Record<string, unknown>) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`);
    event('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } });
    for (const [index, item] of output.entries()) {
      if (res.destroyed) return;
      const common = { item_id: item.id, output_index: index };
      if (item.type === 'message') {
        event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', content: [] } });
        const text = item.content[0]!.text;
        for (const delta of text.match(/[\s\S]{1,24}/g) ?? []) event('response.output_text.delta', { ...common, content_index: 0, delta });
        event('response.output_text.done', { ...common, content_index: 0, text });
      } else if (item.type === 'function_call') {
        event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', arguments: '' } });
        for (const delta of item.arguments.match(/[\s\S]{1,24}/g) ?? [])
          event('response.function_call_arguments.delta', { ...common, delta });
        event('response.function_call_arguments.done', { ...common, arguments: item.arguments });
      } else if (item.type === 'custom_tool_call') {
        event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress', input: '' } });
        for (const delta of item.input.match(/[\s\S]{1,24}/g) ?? []) event('response.custom_tool_call_input.delta', { ...common, delta });
        event('response.custom_tool_call_input.done', { ...common, input: item.input });
      } else event('response.output_item.added', { output_index: index, item: { ...item, status: 'in_progress' } });
      event('response.output_item.done', { output_index: index, item });
    }
    event('response.completed', { response });
    res.end();
  }

  const { port, close } = await listenOnLoopback(handle);
  return { baseUrl: `http://127.0.0.1:${port}/v1`, requests, turns, close };
}
