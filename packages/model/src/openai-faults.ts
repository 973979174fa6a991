import type { ModelFault } from './model-types.js';
import { firstLine } from './ollama-faults.js';

/**
 * What an error of the `openai` client means for a person, in one line with the fix: a refused key names
 * `OPENAI_API_KEY`, an unknown model says how to list the server's models, a prompt too long for the server's
 * window says how to make them agree.
 */
export function openAiFaultOf(error: unknown, host: string, model: string | undefined): ModelFault {
  const e = error as { message?: string; status?: number; error?: unknown };
  const status = typeof e?.status === 'number' ? e.status : undefined;
  const said = firstLine(serverMessage(e) ?? String(e?.message ?? error));
  if (status === 401 || status === 403)
    return {
      code: 'model-auth',
      message: `the server at ${host} refused the API key (${status}): set OPENAI_API_KEY (or model.apiKey in .cairn/config.json) to a key it accepts`,
      hint: 'export OPENAI_API_KEY=… with a key the server accepts',
    };
  // a base URL without its API's path answers 404 for every route, naming no model
  if (status === 404 && !/\/v\d+$/.test(new URL(host).pathname) && !/\bmodel\b/i.test(said))
    return {
      code: 'model-error',
      message: `the server at ${host} has no ${model === undefined ? 'model list' : 'chat-completions API'} there (404): set OPENAI_BASE_URL to its API's base URL, usually ending in /v1`,
      hint: `export OPENAI_BASE_URL=${host}/v1 (or model.baseUrl in .cairn/config.json)`,
    };
  if (status === 404 && model === undefined)
    return {
      code: 'model-missing',
      message: `the server at ${host} has no model list (GET ${host}/models answered 404)`,
      hint: 'the server can still answer chats: spawn with --model openai/<the name it serves>',
    };
  if (status === 404)
    return {
      code: 'model-missing',
      message: `the server at ${host} has no model "${model ?? ''}" (404) — \`cairn models\` lists the models it has`,
      hint: 'run `cairn models`, then spawn with --model openai/<one of them>',
    };
  if (status === 429 || status === 503)
    return {
      code: 'model-busy',
      message: `the server at ${host} stayed busy (${status}) after several tries: ${said}`,
      hint: 'wait a little, or lower how many agents run at once',
    };
  if (status === 400 && /context|too long|maximum.*tokens|exceed/i.test(said))
    return {
      code: 'model-window',
      message: `the server at ${host} refused the prompt as too long for its window: ${said}`,
      hint: "set model.contextTokens in .cairn/config.json to the server's context size (llama-server -c, vLLM --max-model-len)",
    };
  if (status !== undefined)
    return { code: 'model-error', message: `the server at ${host} answered ${status}: ${said}`, hint: "see the server's own log" };
  const chain = causeChain(error);
  if (/APIConnectionTimeoutError|TimeoutError|Request timed out/.test(chain))
    return { code: 'model-timeout', message: `the server at ${host} did not answer in time`, hint: 'give it more time (model.timeoutMs)' };
  if (/ECONNRESET|UND_ERR_SOCKET|terminated/i.test(chain))
    return {
      code: 'model-error',
      message: `the server at ${host} dropped the connection in the middle of an answer`,
      hint: 'check that the server is healthy, then try again',
    };
  if (/APIConnectionError|ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|fetch failed|Connection error/i.test(chain))
    return {
      code: 'model-unreachable',
      message: `cannot reach the OpenAI-compatible server at ${host} — start it, or set OPENAI_BASE_URL to where it runs`,
      hint: 'start the server (llama-server, vLLM, LM Studio…) or set OPENAI_BASE_URL (or model.baseUrl in .cairn/config.json)',
    };
  return { code: 'model-error', message: `asking the server at ${host} failed: ${said}`, hint: 'check OPENAI_BASE_URL and the server' };
}

/** The names, codes and messages of an error and its causes (the client wraps the network's error in its own). */
function causeChain(error: unknown): string {
  const parts: string[] = [];
  let at = error as { name?: unknown; code?: unknown; message?: unknown; cause?: unknown } | undefined;
  for (let depth = 0; depth < 5 && typeof at === 'object' && at !== null; depth++) {
    parts.push(String(at.constructor?.name ?? ''), String(at.name ?? ''), String(at.code ?? ''), String(at.message ?? ''));
    at = at.cause as typeof at;
  }
  return parts.join(' ');
}

function serverMessage(e: { error?: unknown }): string | undefined {
  const body = e?.error as { message?: unknown; error?: unknown } | undefined;
  if (typeof body?.message === 'string') return body.message;
  if (typeof body?.error === 'string') return body.error;
  const nested = body?.error as { message?: unknown } | undefined;
  return typeof nested?.message === 'string' ? nested.message : undefined;
}
