import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisAvailable } from './test-support/redis-server.js';
import { resultOf } from './test-support/run-cairn.js';
import { startCluster, type WorkerCluster } from './test-support/worker-cluster.js';

const hasRedis = redisAvailable();

describe.skipIf(!hasRedis)('uploads bound to the worker that took the run', () => {
  let cluster: WorkerCluster;

  beforeAll(async () => {
    cluster = await startCluster({ workers: ['u1'] });
  });

  afterAll(async () => {
    await cluster?.close();
  });

  /** PUTs `body` as run 1 of the job, as worker `worker`, signed with a key that is not its enrolled one. */
  async function forge(jobId: string, worker: string, body: Buffer): Promise<{ status: number; body: Record<string, unknown> }> {
    const { privateKey } = generateKeyPairSync('ed25519');
    const sha256 = createHash('sha256').update(body).digest('hex');
    const head = `sha256:${'7'.repeat(64)} 3`;
    const signature = sign(null, Buffer.from(`cairn/upload@1\n${jobId}\n1\n${sha256}\n${head.replace(' ', '\n')}\nsha256:x`), privateKey);
    const response = await fetch(`${cluster.endpoint.url}/uploads/${jobId}/1`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${cluster.endpoint.bearer}`,
        'x-cairn-worker': worker,
        'x-cairn-sha256': sha256,
        'x-cairn-journal-head': head,
        'x-cairn-signature': signature.toString('hex'),
      },
      body,
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  it('refuses a forged upload as it arrives, keeps it as evidence with why, and takes the honest worker’s; nobody is blamed', async () => {
    const worker = cluster.startWorker('u1');
    try {
      await worker.waitFor((line) => line.type === 'result');
      const program = `for (let i = 0; i < 3000; i++) await file_exists('README.md');\nawait write_file('honest.txt', 'honest\\n');\nawait submit_result('honest', ['honest.txt']);\n`;
      const id = await cluster.queueProgram('raced by a forger', program);
      for (let i = 0; i < 600 && (await cluster.status(id)).worker !== 'u1'; i++) await new Promise((resolve) => setTimeout(resolve, 100));
      const forged = await forge(`${id}-1`, 'u1', Buffer.from('a well-formed forgery'));
      expect(forged).toEqual({
        status: 403,
        body: expect.objectContaining({ refused: "the upload's signature does not verify with worker u1's enrolled key" }),
      });
      const stranger = await forge(`${id}-1`, 'mallory', Buffer.from('another forgery'));
      expect([stranger.status, stranger.body.refused]).toEqual([
        403,
        'worker mallory is not enrolled: its key is not listed in .cairn/config.json',
      ]);
      const evidence = join(cluster.root, '.agentfs', 'remote', 'evidence');
      expect(JSON.parse(readFileSync(join(evidence, `${id}-1.1.json`), 'utf8'))).toMatchObject({
        worker: 'u1',
        refused: "the upload's signature does not verify with worker u1's enrolled key",
        from: expect.stringMatching(/127\.0\.0\.1/),
      });
      expect(readFileSync(join(evidence, `${id}-1.1.db`), 'utf8')).toBe('a well-formed forgery');
      expect(JSON.parse(readFileSync(join(evidence, `${id}-1.1-2.json`), 'utf8'))).toMatchObject({ worker: 'mallory' });
      // the forgery took no slot: the honest worker's upload is taken, verified, and the agent reaches review
      const [agent] = await cluster.waitForStates([id], ['reviewing', 'failed']);
      expect([agent!.state, agent!.worker, agent!.reason]).toEqual(['reviewing', 'u1', undefined]);
      expect(existsSync(join(cluster.root, '.agentfs', 'remote', 'untrusted.json'))).toBe(false);
      expect(resultOf(await cluster.cairn(['worker', 'trust', 'u1', '--json'])).cleared).toBe(false);
      const logs = cluster.coordinator.lines.map((line) => (line.event as { agentId?: string; message?: string } | undefined) ?? {});
      expect(
        logs.some(
          (e) =>
            e.agentId === id &&
            e.message?.startsWith(
              `an upload for job ${id}-1 (run 1) as worker u1 was refused: the upload's signature does not verify with worker u1's enrolled key; kept in `,
            ),
        ),
      ).toBe(true);
      expect((await cluster.cairn(['replay', id])).code).toBe(0);
    } finally {
      await worker.stop();
    }
  });
});
