import type { StopReason } from './answer-deadline.js';
import type { ModelFault } from './model-types.js';

const NETWORK_CODES = [
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
];

/** The fault of an answer stopped by its deadline, a stall or the caller, for any provider. */
export function stoppedFault(reason: StopReason, server: string, model: string | undefined, ms: number): ModelFault {
  const who = model === undefined ? server : `the model ${model}`;
  if (reason === 'cancelled')
    return {
      code: 'cancelled',
      message: `the request to ${who} was cancelled`,
      hint: 'the agent was stopped (rejected) while it waited for the model',
    };
  if (reason === 'stall')
    return {
      code: 'model-timeout',
      message: `${who} stopped sending its answer for ${Math.round(ms / 1000)} s in the middle of it`,
      hint: `check that ${server} is healthy, then try again`,
    };
  return {
    code: 'model-timeout',
    message: `${who} did not answer within ${Math.round(ms / 1000)} s`,
    hint: 'try a smaller model or a simpler task, or give it more time (model.timeoutMs in .cairn/config.json)',
  };
}

/** What a thrown error from the Ollama client or the network means for a person. */
export function ollamaFaultOf(error: unknown, host: string, model: string | undefined, timeoutMs: number): ModelFault {
  const e = error as { name?: string; message?: string; status_code?: number; cause?: { code?: string; name?: string } };
  const message = String(e?.message ?? error);
  if (e?.name === 'TimeoutError' || e?.cause?.name === 'TimeoutError' || (e?.name === 'AbortError' && /timeout|timed out/i.test(message)))
    return stoppedFault('timeout', `Ollama at ${host}`, model, timeoutMs);
  if (e?.name === 'ResponseError') {
    if (e.status_code === 404 && model !== undefined && /not found|pull/i.test(message)) {
      return {
        code: 'model-missing',
        message: `model "${model}" is not pulled — run \`ollama pull ${model}\` (\`cairn models\` lists the models Ollama has)`,
        hint: `ollama pull ${model}, or pick one of \`cairn models\` with --model`,
      };
    }
    if (e.status_code === 429 || e.status_code === 503)
      return {
        code: 'model-busy',
        message: `Ollama at ${host} is busy (${e.status_code}) and stayed busy after several tries: ${firstLine(message)}`,
        hint: 'wait for the running requests to end, or raise OLLAMA_NUM_PARALLEL / OLLAMA_MAX_QUEUE',
      };
    return {
      code: 'model-error',
      message: `Ollama at ${host} answered ${e.status_code ?? 'an error'}: ${firstLine(message)}`,
      hint: "see Ollama's own log (`ollama serve` prints it)",
    };
  }
  const code = e?.cause?.code ?? '';
  if (NETWORK_CODES.includes(code) || /fetch failed|ECONNREFUSED|terminated/i.test(message)) {
    if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET' || /terminated/i.test(message)) {
      return {
        code: 'model-error',
        message: `Ollama at ${host} dropped the connection in the middle of an answer`,
        hint: 'check that Ollama is healthy (`ollama ps`), then try again',
      };
    }
    return {
      code: 'model-unreachable',
      message: `cannot reach Ollama at ${host} — start it with \`ollama serve\``,
      hint: 'start Ollama with `ollama serve` (or set OLLAMA_HOST to where it runs)',
    };
  }
  if (error instanceof SyntaxError || /JSON/i.test(message)) {
    return {
      code: 'model-error',
      message: `Ollama at ${host} sent an answer that is not valid JSON`,
      hint: 'check that OLLAMA_HOST points at Ollama',
    };
  }
  return {
    code: 'model-error',
    message: `asking Ollama at ${host} failed: ${firstLine(message)}`,
    hint: 'check that Ollama runs (`ollama serve`) and OLLAMA_HOST is right',
  };
}

/** The first line of a server's message, cut to a readable length. */
export function firstLine(text: string): string {
  return text.split('\n')[0]!.slice(0, 300);
}
