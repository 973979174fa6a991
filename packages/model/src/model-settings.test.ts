import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempFolders } from '@cairn/api/testing';
import { describe, expect, it } from 'vitest';
import { parseModelName, qualifyModelName } from './model-name.js';
import { loadModelSettings } from './model-settings.js';
import { retryDelayMs } from './retry-after.js';
import { contextWindow, promptWasCut } from './token-budget.js';

const folders = tempFolders('cairn-model-');

function config(text: string): string {
  const dir = folders.make();
  const path = join(dir, 'config.json');
  writeFileSync(path, text);
  return path;
}

describe('model settings', () => {
  it('reads the model section, and its absence as the defaults', () => {
    expect(loadModelSettings('/no/such/config.json')).toEqual({});
    expect(loadModelSettings(config('{"inbox":{}}'))).toEqual({});
    const path = config(
      JSON.stringify({
        model: {
          default: 'openai/m',
          provider: 'openai',
          baseUrl: 'http://x/v1',
          contextTokens: 8192,
          temperature: 0.7,
          seed: 0,
          timeoutMs: 5000,
        },
      }),
    );
    expect(loadModelSettings(path)).toEqual({
      default: 'openai/m',
      provider: 'openai',
      baseUrl: 'http://x/v1',
      contextTokens: 8192,
      temperature: 0.7,
      seed: 0,
      timeoutMs: 5000,
    });
  });

  it('refuses a malformed section with where it is', () => {
    for (const [text, message] of [
      ['{"model": 3}', '"model" must be an object'],
      ['{"model": {"window": 3}}', '"model.window" is not a setting'],
      ['{"model": {"contextTokens": 0}}', '"model.contextTokens" must be a whole number of at least 1'],
      ['{"model": {"temperature": 3}}', '"model.temperature" must be a number from 0 to 2'],
      ['{"model": {"provider": "anthropic"}}', '"model.provider" must be "ollama" or "openai"'],
      ['{"model": ', 'is not JSON'],
    ] as const)
      expect(() => loadModelSettings(config(text))).toThrow(
        expect.objectContaining({ code: 'CAIRN_CONFIG', message: expect.stringContaining(message) }),
      );
  });
});

describe('model names, windows and cut prompts', () => {
  it('routes by prefix, never sending it', () => {
    expect(parseModelName('qwen2.5-coder:7b')).toEqual({ provider: 'ollama', name: 'qwen2.5-coder:7b' });
    expect(parseModelName('ollama/llama3')).toEqual({ provider: 'ollama', name: 'llama3' });
    expect(parseModelName('openai/gpt-4o-mini')).toEqual({ provider: 'openai', name: 'gpt-4o-mini' });
    expect(parseModelName('m', 'openai')).toEqual({ provider: 'openai', name: 'm' });
    expect(qualifyModelName('m', 'openai')).toBe('openai/m');
    expect(qualifyModelName('m', 'ollama')).toBe('m');
  });

  it('asks for the smallest of the model context, the project cap and 16,384', () => {
    expect(contextWindow(32_768, undefined)).toBe(16_384);
    expect(contextWindow(4096, undefined)).toBe(4096);
    expect(contextWindow(32_768, 8000)).toBe(8000);
    expect(contextWindow(undefined, undefined)).toBe(16_384);
    expect(contextWindow(undefined, undefined, 'openai')).toBe(8192);
    expect(contextWindow(undefined, 12_000, 'openai')).toBe(12_000);
  });

  it('reads a count that filled the window, or a window-sized count far under the prompt, as a cut prompt', () => {
    expect(promptWasCut(5000, 2048, 16_384)).toBe(true);
    expect(promptWasCut(3000, 4096, 4096)).toBe(true);
    expect(promptWasCut(5000, 4000, 16_384)).toBe(false);
    expect(promptWasCut(5000, 120, 16_384)).toBe(false);
    expect(promptWasCut(5000, 0, 16_384)).toBe(false);
  });

  it('waits what Retry-After asks, bounded', () => {
    expect(retryDelayMs('2', 0)).toBe(2000);
    expect(retryDelayMs('3600', 0)).toBe(30_000);
    expect(retryDelayMs(null, 2)).toBe(4000);
    expect(retryDelayMs(new Date(10_000).toUTCString(), 0, 5000)).toBe(5000);
  });
});
