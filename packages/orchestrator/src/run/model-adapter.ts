import type { CborValue } from '@cairn/air';
import type { ModelClient } from '../model/ollama-client.js';
import type { BlobStore } from '../workspace/blob-store.js';
import type { ModelCall } from './run-context.js';
import type { EffectResult } from './fs-effects.js';

/**
 * The live `llm.generate` adapter: reads the chat from the blob its parameters name, asks the model, keeps the
 * answer as a blob. A fault of the server (not running, model not pulled, timeout) becomes an error receipt
 * with the message and the hint a person can act on.
 */
export function modelCaller(client: ModelClient, blobs: BlobStore): ModelCall {
  return async (params: Record<string, CborValue>): Promise<EffectResult> => {
    const messages = blobs.json<unknown>(String(params.input_ref));
    const answer = await client.chat({
      model: String(params.model),
      messages: messages as Parameters<ModelClient['chat']>[0]['messages'],
      maxTokens: Number(params.max_tokens),
      temperature: Number(params.temperature),
    });
    if (!answer.ok) return { status: 'error', payload: { error: answer.fault.message, code: answer.fault.code, hint: answer.fault.hint } };
    return {
      status: 'ok',
      payload: {
        output_ref: blobs.put(answer.text),
        token_usage: { prompt: answer.promptTokens, completion: answer.completionTokens },
        cost_cents: 0,
        provider_id: 'ollama',
      },
    };
  };
}
