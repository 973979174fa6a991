import { afterAll, beforeAll, describe } from 'vitest';
import { describeAgentCalls } from './contract-agents.js';
import { describeChecks } from './contract-checks.js';
import { type ContractSubject, contractContext } from './contract-context.js';
import { describeRefusals } from './contract-refusals.js';
import { describeReviewAndEvents } from './contract-review.js';

export type { ContractSubject, ContractTemp } from './contract-context.js';

/**
 * One suite for every implementation of `CairnApi`: the in-process project (project/project-contract.test.ts)
 * and the daemon's client over a real socket (daemon/daemon-contract.test.ts) must pass the same assertions.
 */
export function describeCairnApiContract(name: string, open: () => Promise<ContractSubject>): void {
  describe(`CairnApi contract: ${name}`, () => {
    let subject: ContractSubject | undefined;
    let user: string | undefined;
    beforeAll(async () => {
      user = process.env.CAIRN_USER;
      process.env.CAIRN_USER = 'alice';
      subject = await open();
    });
    afterAll(async () => {
      await subject?.close();
      if (user === undefined) delete process.env.CAIRN_USER;
      else process.env.CAIRN_USER = user;
    });
    const ctx = contractContext(() => subject!, open);
    describeAgentCalls(ctx);
    describeReviewAndEvents(ctx);
    describeRefusals(ctx);
    describeChecks(ctx);
  });
}
