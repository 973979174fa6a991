import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentFS } from '@cairn/agentfs';
import { DEFAULT_BUDGETS, DEFAULT_LIMITS } from '@cairn/api';
import { compileGovernance, governanceFor } from '@cairn/governance';
import { Project } from '@cairn/orchestrator';
import type { ProjectParts } from '@cairn/orchestrator/engine';
import { wireProject } from '@cairn/orchestrator/engine';
import { AgentWorkspace } from '@cairn/workspace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken, type TokenClaims } from './capability-token.js';
import type { RemoteJobData } from './remote-job.js';
import { SnapshotProjects } from './run-remote-agent.js';
import { loadSigningKey, type SigningKey, signText } from './signing-key.js';
import { hashFile, SnapshotMaker } from './snapshots.js';
import { uploadSigningText } from './upload-signature.js';
import { type ExpectedResult, verifyResult } from './verify-result.js';
import { uploadPaths } from './worker-endpoint.js';

const CODE = "await write_file('docs/notes.txt', 'written remotely\\n');\nawait submit_result('wrote notes', ['docs/notes.txt']);\n";

describe('verifying a remote result', () => {
  let base: string;
  let parts: ProjectParts;
  let coordinator: SigningKey;
  let worker: SigningKey;
  let claims: TokenClaims;
  let token: string;
  let snapshotPath: string;
  let honest: { db: string; head: { hash: string; length: number }; tokenHash: string; runs: number };
  const jobId = 'ab12-1';
  let cases = 0;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'cairn-verify-'));
    const root = join(base, 'project');
    mkdirSync(root);
    writeFileSync(join(root, 'README.md'), '# project\n');
    parts = wireProject(root, { cairnHome: join(base, 'home'), queue: 'none' });
    await new Project(parts).sync();
    coordinator = loadSigningKey(join(base, 'coordinator.key'));
    worker = loadSigningKey(join(base, 'worker.key'));
    const snapshot = await new SnapshotMaker(parts.core.stable, join(base, 'snapshots')).current();
    snapshotPath = snapshot.path;
    const agent = {
      id: 'ab12',
      task: 'write notes',
      origin: 'code' as const,
      lang: 'js' as const,
      code: CODE,
      limits: DEFAULT_LIMITS,
      budgets: DEFAULT_BUDGETS,
    };
    const governance = compileGovernance(governanceFor(parts.core.layout, agent));
    claims = {
      job: jobId,
      agent: agent.id,
      attempt: 1,
      model: 'none',
      grants: governance.grants.map((g) => g.name),
      governance: `sha256:${createHash('sha256').update(governance.json).digest('hex')}`,
      budgets: agent.budgets,
      snapshot: `sha256:${snapshot.hash}`,
      expiresAt: Date.now() + 3_600_000,
    };
    token = signToken(claims, coordinator.secret);
    const data: RemoteJobData = { agent, governance: governance.json, snapshot: snapshot.hash, token };
    const projects = new SnapshotProjects(join(base, 'worker-projects'), {
      home: join(base, 'worker-home'),
      secret: worker.secret,
      worker: 'w1',
    });
    const run = await projects.run(snapshot.hash, snapshotPath, { data });
    // the upload is a copy: the worker's project is done with it
    copyFileSync(run.database, join(base, 'honest.db'));
    run.release();
    await projects.close();
    expect(run.record.state, run.record.reason).toBe('reviewing');
    honest = { db: join(base, 'honest.db'), head: run.record.journalHead!, tokenHash: run.tokenHash, runs: run.record.runs };
    parts.core.store.insertQueued({ ...agent, tokenHash: run.tokenHash });
  });

  afterAll(async () => {
    await new Project(parts).close();
    rmSync(base, { recursive: true, force: true });
  });

  /** A copy of the honest upload, changed by `tamper`, declared and signed by `signer` as a worker would. */
  async function upload(tamper: (db: string) => void = () => undefined, signer: SigningKey = worker): Promise<ExpectedResult['upload']> {
    const paths = uploadPaths(join(base, 'uploads', String(cases++)), jobId, 1);
    mkdirSync(join(paths.db, '..'), { recursive: true });
    copyFileSync(honest.db, paths.db);
    tamper(paths.db);
    const sha256 = await hashFile(paths.db);
    const signature = signText(signer.secret, uploadSigningText(jobId, 1, sha256, honest.head, honest.tokenHash));
    writeFileSync(paths.claims, JSON.stringify({ worker: 'w1', sha256, head: honest.head, signature }));
    return paths;
  }

  function expected(paths: ExpectedResult['upload'], overrides: Partial<ExpectedResult> = {}): ExpectedResult {
    return {
      record: parts.core.store.require('ab12'),
      jobId,
      attempt: 1,
      token,
      coordinatorKey: coordinator.publicKey,
      snapshot: claims.snapshot.slice('sha256:'.length),
      snapshotPath,
      upload: paths,
      workerKey: (name) => (name === 'w1' ? worker.publicKey : undefined),
      runs: honest.runs,
      now: Date.now(),
      ...overrides,
    };
  }

  it('accepts an honest result: token, signatures, chain, replay and the rebuilt overlay all agree', async () => {
    const verdict = await verifyResult(parts.core, expected(await upload()), 'w1');
    expect(verdict).toMatchObject({ ok: true, head: honest.head });
  });

  it('refuses an overlay changed after the run, even when the worker signs it', async () => {
    const paths = await upload((db) => {
      const store = AgentFS.open(db);
      store.fs.writeFile('/docs/notes.txt', Buffer.from('something else\n'));
      store.close();
    });
    const verdict = await verifyResult(parts.core, expected(paths), 'w1');
    expect(verdict).toMatchObject({ ok: false, blameWorker: true });
    expect(verdict.ok === false && verdict.reason).toMatch(/the uploaded overlay \(sha256:\w+\) is not what the replay rebuilt/);
  });

  it('refuses an overlay with a change the journal never made, even when the worker signs it', async () => {
    for (const tamper of [
      (fs: AgentWorkspace['overlay']['fs']) => fs.writeFile('/smuggled.txt', Buffer.from('never journaled\n')),
      (fs: AgentWorkspace['overlay']['fs']) => fs.unlink('/README.md'),
      (fs: AgentWorkspace['overlay']['fs']) => fs.mkdir('/smuggled'),
    ]) {
      const paths = await upload((db) => {
        const base = AgentFS.open(snapshotPath, { readonly: true });
        const workspace = AgentWorkspace.open('ab12', db, base, honest.head);
        tamper(workspace.overlay.fs);
        workspace.close();
        base.close();
      });
      const verdict = await verifyResult(parts.core, expected(paths), 'w1');
      expect(verdict).toMatchObject({ ok: false, blameWorker: true });
      expect(verdict.ok === false && verdict.reason).toMatch(
        /the upload changes (smuggled\.txt|README\.md|smuggled), which its journal never touched/,
      );
    }
  });

  it('refuses a journal that was edited or cut short', async () => {
    const edited = await upload((db) => {
      const store = AgentFS.open(db);
      store.db.prepare('UPDATE cairn_journal SET hash = prev WHERE seq = (SELECT MAX(seq) FROM cairn_journal) - 1').run();
      store.close();
    });
    const verdict = await verifyResult(parts.core, expected(edited), 'w1');
    expect(verdict.ok === false && verdict.reason).toMatch(/the journal of agent ab12 is broken at entry \d+/);
    const cut = await upload((db) => {
      const store = AgentFS.open(db);
      store.db.prepare('DELETE FROM cairn_journal WHERE seq = (SELECT MAX(seq) FROM cairn_journal)').run();
      store.close();
    });
    const shortened = await verifyResult(parts.core, expected(cut), 'w1');
    expect(shortened.ok === false && shortened.reason).toMatch(/the journal of agent ab12 is broken/);
  });

  it("refuses a result signed with a key other than the worker's enrolled one", async () => {
    const other = loadSigningKey(join(base, 'other.key'));
    const verdict = await verifyResult(parts.core, expected(await upload(undefined, other)), 'w1');
    expect(verdict).toMatchObject({
      ok: false,
      blameWorker: true,
      reason: "the upload's signature does not verify with worker w1's enrolled key",
    });
    const stranger = await verifyResult(parts.core, expected(await upload()), 'w9');
    expect(stranger.ok === false && stranger.reason).toMatch(/the upload is signed as worker w1, the job was completed by w9/);
  });

  it('refuses an expired token, or one this coordinator did not sign, without blaming the worker', async () => {
    const late = await verifyResult(parts.core, expected(await upload(), { now: claims.expiresAt + 1 }), 'w1');
    expect(late).toMatchObject({ ok: false, blameWorker: false });
    expect(late.ok === false && late.reason).toMatch(/the capability token expired at/);
    const forged = signToken({ ...claims, budgets: { ...claims.budgets, tokens: 10 ** 9 } }, worker.secret);
    const verdict = await verifyResult(parts.core, expected(await upload(), { token: forged }), 'w1');
    expect(verdict.ok === false && verdict.reason).toBe("the capability token is not signed by this coordinator's key");
  });
});
