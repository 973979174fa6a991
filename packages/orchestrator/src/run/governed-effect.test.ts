import type { Receipt } from '@cairn/air';
import { createModelClient } from '@cairn/model';
import { contentHash } from '@cairn/workspace';
import { describe, expect, it } from 'vitest';
import { makeRunFixture } from '../test-support/run-fixture.js';
import { startScriptedOllama } from '../testing/scripted-ollama.js';
import { performRead, performWrite } from './fs-effects.js';
import { governedFsEffect, governedModelEffect } from './governed-effect.js';
import { modelCaller } from './model-adapter.js';
import type { ModelCall } from './run-context.js';

const FILES = { 'src/a.js': 'const a = 1;\n', '.env': 'SECRET=1\n' };

describe('a governed effect', () => {
  it('runs an admitted effect and journals intent, policy decision and a verified receipt', async () => {
    await using run = makeRunFixture(FILES);
    const outcome = governedFsEffect(run.ctx, 'fs.read', { path: 'src/a.js' }, () => performRead(run.ctx.view, 'src/a.js', false), {
      tool: 'read_file',
      path: 'src/a.js',
    });
    expect(outcome).toMatchObject({ ok: true, payload: { path: 'src/a.js', kind: 'file' } });
    const kinds = run.journal.entries().map((e) => e.kind);
    expect(kinds).toEqual(expect.arrayContaining(['EffectQueued', 'ReceiptAppended']));
    expect(kinds.indexOf('EffectQueued')).toBeLessThan(kinds.indexOf('ReceiptAppended'));
    expect(run.ctx.calls).toBe(1);
  });

  it('never runs a denied effect: the denial is journaled, reported as an event and returned', async () => {
    await using run = makeRunFixture(FILES);
    let ran = false;
    const outcome = governedFsEffect(
      run.ctx,
      'fs.read',
      { path: '.env' },
      () => {
        ran = true;
        return performRead(run.ctx.view, '.env', false);
      },
      { tool: 'read_file', path: '.env' },
    );
    expect(ran).toBe(false);
    expect(outcome).toMatchObject({ ok: false, denied: true, code: expect.stringMatching(/^denied-/) });
    expect(run.events).toContainEqual(
      expect.objectContaining({ type: 'agent.denied', tool: 'read_file', effect: 'fs.read', path: '.env' }),
    );
    expect(run.journal.entries().some((e) => e.kind === 'EffectDenied' || e.kind === 'PolicyDecisionRecorded')).toBe(true);
  });

  it('stops at the byte budget and names the budget that ran out', async () => {
    await using run = makeRunFixture(FILES, { budgets: { bytes: 10 } });
    const write = (path: string, text: string) =>
      governedFsEffect(
        run.ctx,
        'fs.write',
        { op: 'write', path, size: Buffer.byteLength(text), content_ref: contentHash(Buffer.from(text)) },
        () => performWrite(run.ctx.view, { op: 'write', path, content: Buffer.from(text) }),
        { tool: 'write_file', path },
      );
    expect(write('a.txt', '12345678').ok).toBe(true);
    expect(write('b.txt', '12345678')).toMatchObject({ ok: false, denied: true });
    expect(run.ctx.breach).toMatchObject({ budget: 'bytes' });
    expect(run.overlay.changes().map((c) => c.path)).toEqual(['a.txt']);
  });

  it('asks the model (a real HTTP server speaking Ollama) only for an admitted call, and journals its signed answer', async () => {
    const ollama = await startScriptedOllama(
      [{ kind: 'answer', text: 'the answer', promptTokens: 3, completionTokens: 4 }],
      ['test-model'],
    );
    try {
      let caller: ModelCall | undefined;
      await using run = makeRunFixture(FILES, { callModel: (params) => caller!(params) });
      caller = modelCaller(createModelClient({ host: ollama.host }), run.ctx.blobs);
      const params = {
        provider: 'ollama',
        model: 'test-model',
        temperature: '0.2',
        max_tokens: 100,
        input_ref: run.ctx.blobs.putJson([{ role: 'user', content: 'hello?' }]),
      };
      const outcome = await governedModelEffect(run.ctx, params, { tool: 'ask_llm' });
      expect(outcome).toMatchObject({ ok: true, payload: { token_usage: { prompt: 3, completion: 4 } } });
      if (!outcome.ok) throw new Error(outcome.message);
      expect(run.ctx.blobs.text(String(outcome.payload.output_ref))).toBe('the answer');
      const denied = await governedModelEffect(run.ctx, { ...params, provider: 'somewhere-else' }, { tool: 'ask_llm' });
      expect(denied).toMatchObject({ ok: false, denied: true });
      expect(ollama.requests.filter((r) => r.path === '/api/chat')).toHaveLength(1);
    } finally {
      await ollama.close();
    }
  });

  it('in a replay takes the recorded receipt and reports an effect the recording lacks as a divergence', async () => {
    await using run = makeRunFixture(FILES);
    run.ctx.mode = 'replay';
    const none = new Map<string, Receipt>();
    run.ctx.recorded = { take: (hash) => none.get(hash) };
    const outcome = governedFsEffect(run.ctx, 'fs.read', { path: 'src/a.js' }, () => performRead(run.ctx.view, 'src/a.js', false), {
      tool: 'read_file',
      path: 'src/a.js',
    });
    expect(outcome).toMatchObject({ ok: false, denied: false, code: 'replay-diverged' });
    expect(run.ctx.divergence?.reason).toMatch(/made an effect the recording does not have/);
  });
});
