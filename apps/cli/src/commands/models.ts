import { createModelClient, loadModelSettings, type ModelListing, modelClientOptionsFor } from '@cairn/model';
import { projectLayout } from '@cairn/workspace/layout';
import type { CommandContext } from '../context.js';

type Provider = 'ollama' | 'openai';

/**
 * `cairn models`: the models the configured servers offer, each with its context length where the server tells
 * it — the project's provider (Ollama unless `.cairn/config.json` says `"provider": "openai"`), and besides
 * Ollama the OpenAI-compatible server wherever one is set (`OPENAI_BASE_URL`, or `model.baseUrl`), as the
 * `openai/NAME` models a spawn can name. Exit 1 with a server's fault and its fix when one cannot be asked.
 */
export async function modelsCommand(ctx: CommandContext): Promise<number> {
  const { out } = ctx;
  const settings = loadModelSettings(projectLayout(ctx.root).configPath);
  const options = modelClientOptionsFor(settings, { timeoutMs: 15_000 });
  const client = createModelClient(options);
  const providers: Provider[] = [settings.provider ?? 'ollama'];
  if (providers[0] === 'ollama' && options.openai?.baseUrl !== undefined) providers.push('openai');
  const listings = await Promise.all(providers.map(async (provider) => ({ provider, listed: await client.describeModels(provider) })));
  const [first] = listings;
  const servers = listings.map(({ provider, listed }) => (listed.ok ? listed : { provider, fault: listed.fault }));
  const ok = listings.every(({ listed }) => listed.ok);
  if (first!.listed.ok) {
    const { provider, host, models } = first!.listed;
    out.result(ok, { provider, host, models, ...(servers.length > 1 ? { servers } : {}) });
  } else out.result(false, { fault: first!.listed.fault, ...(servers.length > 1 ? { servers } : {}) });
  for (const [index, { provider, listed }] of listings.entries()) {
    if (index > 0) out.line('');
    if (!listed.ok) {
      const which = listings.length > 1 ? ` (${provider === 'ollama' ? 'Ollama' : 'the OpenAI-compatible server'})` : '';
      out.line(`${out.paint.red('cannot list models')}${which}: ${listed.fault.message}`);
      out.line(out.paint.dim(`  ${listed.fault.hint}`));
    } else renderListing(ctx, provider, listed.host, listed.models);
  }
  if (listings.some(({ listed }) => listed.ok && listed.models.length > 0))
    out.line(out.paint.dim('context: the longest window the model takes; a spawn asks for at most model.contextTokens (default 16384)'));
  return ok ? 0 : 1;
}

function renderListing({ out }: CommandContext, provider: Provider, host: string, models: readonly ModelListing[]): void {
  const where = provider === 'ollama' ? `Ollama at ${host}` : `the OpenAI-compatible server at ${host}`;
  if (models.length === 0) {
    out.line(`${where} has no models${provider === 'ollama' ? ': `ollama pull qwen2.5-coder:7b` adds one' : ''}`);
    return;
  }
  const prefix = provider === 'openai' ? 'openai/' : '';
  const rows = models.map((m) => [
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
  out.line(out.paint.dim(`${models.length} model${models.length === 1 ? '' : 's'} on ${where}:`));
  out.line(out.paint.dim(line(['MODEL', 'CONTEXT', 'SIZE'])));
  for (const row of rows) out.line(line(row));
}
