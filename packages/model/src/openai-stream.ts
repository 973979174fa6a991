import type OpenAI from 'openai';
import type { AnswerDeadline } from './answer-deadline.js';
import type { ChatRequest, ModelAnswer } from './model-types.js';

/** What the chunks of an answer add up to. */
interface Collected {
  text: string;
  model: string;
  doneReason: string;
  promptTokens: number;
  completionTokens: number;
}

/**
 * One chat-completions request, streamed (usage asked for in the last chunk), every chunk keeping the deadline
 * alive. A server that ignores `stream` and answers one JSON completion (some proxies and local servers do) is
 * read as that completion, not as an empty stream.
 */
export async function streamChat(openai: OpenAI, request: ChatRequest & { name: string }, deadline: AnswerDeadline): Promise<ModelAnswer> {
  const { data: stream, response } = await openai.chat.completions
    .create(
      {
        model: request.name,
        messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
        max_tokens: request.maxTokens,
        temperature: request.temperature,
        ...(request.seed === undefined ? {} : { seed: request.seed }),
        stream: true,
        stream_options: { include_usage: true },
      },
      { signal: deadline.signal, timeout: deadline.timeoutMs },
    )
    .withResponse();
  const collected: Collected = { text: '', model: request.name, doneReason: 'stop', promptTokens: 0, completionTokens: 0 };
  if (isJson(response.headers.get('content-type'))) {
    const completion = (await response.json()) as OpenAI.Chat.Completions.ChatCompletion;
    deadline.touch();
    add(collected, completion.model, completion.choices?.[0]?.message?.content, completion.choices?.[0]?.finish_reason, completion.usage);
  } else
    for await (const chunk of stream) {
      deadline.touch();
      add(collected, chunk.model, chunk.choices?.[0]?.delta?.content, chunk.choices?.[0]?.finish_reason, chunk.usage);
    }
  // a client may end an aborted stream quietly: an answer stopped by its deadline or a reject is no answer
  if (deadline.reason !== undefined) throw new Error(`the answer was stopped (${deadline.reason})`);
  return {
    ok: true,
    text: collected.text,
    model: collected.model,
    promptTokens: collected.promptTokens,
    completionTokens: collected.completionTokens || Math.ceil(collected.text.length / 4),
    doneReason: collected.doneReason,
    truncated: collected.doneReason === 'length',
    firstTokenMs: deadline.firstTokenMs,
    totalMs: deadline.elapsedMs,
  };
}

function add(
  collected: Collected,
  model: string | undefined,
  content: string | null | undefined,
  finish: string | null | undefined,
  usage: OpenAI.Completions.CompletionUsage | null | undefined,
): void {
  if (model) collected.model = model;
  collected.text += content ?? '';
  if (finish) collected.doneReason = finish;
  if (usage) {
    collected.promptTokens = Number(usage.prompt_tokens ?? 0);
    collected.completionTokens = Number(usage.completion_tokens ?? 0);
  }
}

/** True for `application/json` and `…+json` (not `application/x-ndjson`, nor an event stream). */
function isJson(contentType: string | null): boolean {
  const media = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return media === 'application/json' || media.endsWith('+json');
}
