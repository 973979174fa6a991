import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Project } from '@cairn/orchestrator';
import { makeTempProject, SAMPLE_FILES, type TempProject } from '@cairn/orchestrator/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveApi } from './server.js';
import { readBody, requestOverSocket, socketAgent } from './socket-http.js';

let temp: TempProject;
let project: Project;

beforeAll(async () => {
  temp = makeTempProject(SAMPLE_FILES);
  project = temp.open();
  await project.sync();
});

afterAll(async () => {
  await project.close();
  temp.cleanup();
});

describe('the API server', () => {
  it('listens before its routes are loaded, and answers the requests that come meanwhile, bodies and all', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-server-'));
    const socketPath = join(dir, 'cairn.sock');
    const identity = { pid: process.pid, root: temp.root, version: '0.0.0-test', startedAt: '2026-11-27T00:00:00.000Z' };
    const server = await serveApi(project, socketPath, identity, () => undefined);
    const agent = socketAgent();
    try {
      // sent at once, before anything warms the routes: each waits for their code, none is lost
      const answers = await Promise.all([
        requestOverSocket(agent, socketPath, 'GET', '/health'),
        requestOverSocket(agent, socketPath, 'GET', '/agents'),
        requestOverSocket(agent, socketPath, 'POST', '/agents', { task: 'early', code: "await write_file('early.txt', 'e');" }),
        requestOverSocket(agent, socketPath, 'POST', '/agents', { task: 'bad', code: 42 }),
      ]);
      const bodies = await Promise.all(answers.map(readBody));
      expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 201, 400]);
      expect(JSON.parse(bodies[1]!)).toEqual([]);
      const spawned = JSON.parse(bodies[2]!) as { id: string; task: string };
      expect(spawned.task).toBe('early');
      expect((await project.wait(spawned.id)).state).toBe('reviewing');
      expect((JSON.parse(bodies[3]!) as { code: string }).code).toBe('CAIRN_INVALID_ARGUMENT');
      server.warm();
      const later = await requestOverSocket(agent, socketPath, 'GET', `/agents/${spawned.id}`);
      expect(later.statusCode).toBe(200);
      await readBody(later);
    } finally {
      agent.destroy();
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
