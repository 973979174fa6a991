import type { CborValue } from '@cairn/air';
import type { ModelClient } from '@cairn/model';
import { chatInWindow, type WindowFacts, type WindowOptions } from '@cairn/model';
import type { BlobStore } from '@cairn/workspace';
import type { ModelCall } from './run-context.js';

/**
 * The live `llm.generate` adapter: reads the chat from the blob its parameters name, asks the model within an
 * explicit window (`chatInWindow`), keeps the answer as a blob. A fault of the server (not running, model not
 * pulled, timeout, a prompt it cut) becomes an error receipt with the message and the hint a person can act
 * on; the window, the prompt estimate and the timings come back as `facts`, journaled beside the receipt.
 */
export function modelCaller(client: ModelClient, blobs: BlobStore, options: WindowOptions = {}): ModelCall {
  return async (params: Record<string, CborValue>) => {
    const messages = blobs.json<unknown>(String(params.input_ref));
    const { answer, facts } = await chatInWindow(
      client,
      {
        model: String(params.model),
        messages: messages as Parameters<ModelClient['chat']>[0]['messages'],
        maxTokens: Number(params.max_tokens),
        temperature: Number(params.temperature),
      },
      options,
    );
    const journaled = facts === undefined ? {} : { facts: factsValue(facts) };
    if (!answer.ok)
      return { status: 'error', payload: { error: answer.fault.message, code: answer.fault.code, hint: answer.fault.hint }, ...journaled };
    return {
      status: 'ok',
      payload: {
        output_ref: blobs.put(answer.text),
        token_usage: { prompt: answer.promptTokens, completion: answer.completionTokens },
        cost_cents: 0,
        provider_id: facts?.provider ?? 'ollama',
      },
      ...journaled,
    };
  };
}

/** The facts as a journal value: whole numbers and texts only. */
function factsValue(facts: WindowFacts): Record<string, CborValue> {
  const value: Record<string, CborValue> = {
    provider: facts.provider,
    window: facts.window,
    prompt_estimate: facts.promptEstimate,
    max_tokens: facts.maxTokens,
    temperature: String(facts.temperature),
  };
  if (facts.seed !== undefined) value.seed = facts.seed;
  if (facts.promptTokens !== undefined) value.prompt_tokens = facts.promptTokens;
  if (facts.outputTokens !== undefined) value.output_tokens = facts.outputTokens;
  if (facts.firstTokenMs !== undefined) value.first_token_ms = Math.round(facts.firstTokenMs);
  if (facts.totalMs !== undefined) value.total_ms = Math.round(facts.totalMs);
  if (facts.doneReason !== undefined) value.done_reason = facts.doneReason;
  return value;
}
