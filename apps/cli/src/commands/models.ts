import { createModelClient, loadModelSettings, modelClientOptionsFor, projectLayout } from '@cairn/orchestrator';
import type { CommandContext } from '../context.js';

/**
 * `cairn models`: the models the configured server offers (Ollama, or the OpenAI-compatible server when
 * `.cairn/config.json` says `"provider": "openai"`), each with its context length where the server tells it;
 * exit 1 with the server's fault and its fix when it cannot be asked.
 */
export async function modelsCommand(ctx: CommandContext): Promise<number> {
  const { out } = ctx;
  const settings = loadModelSettings(projectLayout(ctx.root).configPath);
  const client = createModelClient(modelClientOptionsFor(settings, { timeoutMs: 15_000 }));
  const listed = await client.describeModels();
  if (!listed.ok) {
    out.result(false, { fault: listed.fault });
    out.line(`${out.paint.red('cannot list models')}: ${listed.fault.message}`);
    out.line(out.paint.dim(`  ${listed.fault.hint}`));
    return 1;
  }
  out.result(true, { provider: listed.provider, host: listed.host, models: listed.models });
  const where = listed.provider === 'ollama' ? `Ollama at ${listed.host}` : `the OpenAI-compatible server at ${listed.host}`;
  if (listed.models.length === 0) {
    out.line(`${where} has no models${listed.provider === 'ollama' ? ': `ollama pull qwen2.5-coder:7b` adds one' : ''}`);
    return 0;
  }
  const prefix = listed.provider === 'openai' ? 'openai/' : '';
  const rows = listed.models.map((m) => [
    `${prefix}${m.name}`,
    m.contextLength === undefined ? '?' : String(m.contextLength),
    m.size === undefined ? '' : `${(m.size / 1e9).toFixed(1)} GB`,
  ]);
  const widths = [0, 1, 2].map((i) => Math.max(['MODEL', 'CONTEXT', 'SIZE'][i]!.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  out.line(out.paint.dim(`${listed.models.length} model${listed.models.length === 1 ? '' : 's'} on ${where}:`));
  out.line(out.paint.dim(line(['MODEL', 'CONTEXT', 'SIZE'])));
  for (const row of rows) out.line(line(row));
  out.line(out.paint.dim('context: the longest window the model takes; a spawn asks for at most model.contextTokens (default 16384)'));
  return 0;
}
