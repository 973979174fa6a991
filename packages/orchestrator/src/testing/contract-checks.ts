import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { type ContractContext, writes } from './contract-context.js';

/** The contract of checks: run on demand, read back with their output, refused by name when unknown. */
export function describeChecks(ctx: ContractContext): void {
  it('runChecks runs a declared check on a proposal; checks, checkOutput and the agent show its result', async () => {
    const dir = ctx.folder('checks');
    const config = join(ctx.subject().temp.root, '.cairn', 'config.json');
    const before = existsSync(config) ? readFileSync(config, 'utf8') : undefined;
    const probe = { command: ['sh', '-c', `cat ${dir}/v.txt; grep -q good ${dir}/v.txt`], auto: false, timeoutMs: 120_000 };
    ctx
      .subject()
      .temp.write('.cairn/config.json', JSON.stringify({ ...(before === undefined ? {} : JSON.parse(before)), checks: { probe } }));
    try {
      const agent = await ctx.reviewing(writes(`${dir}/v.txt`, 'good\n'));
      expect(await ctx.api().checks(agent.id)).toEqual([]);
      const results = await ctx.api().runChecks(agent.id);
      expect(results).toEqual([expect.objectContaining({ name: 'probe', status: 'passed', exitCode: 0, auto: false })]);
      expect((await ctx.api().checks(agent.id)).map((r) => r.status)).toEqual(['passed']);
      const output = await ctx.api().checkOutput(agent.id, 'probe');
      expect(output.output).toBe('good\n');
      expect(output.result.view === 'overlay' || output.result.view === 'copy').toBe(true);
      expect((await ctx.api().agent(agent.id)).checks?.map((r) => r.name)).toEqual(['probe']);
      await ctx.refuses(ctx.api().checkOutput(agent.id, 'nope'), 'CAIRN_NOT_FOUND', /no check named "nope"/);
      await ctx.refuses(ctx.api().runChecks(agent.id, ['nope']), 'CAIRN_NOT_FOUND', /no check named "nope"/);
    } finally {
      if (before === undefined) rmSync(config, { force: true });
      else writeFileSync(config, before);
    }
  });
}
