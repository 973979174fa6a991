import { chmodSync, lstatSync, rmSync, type Stats } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { dirname } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { CairnError } from '../api/errors.js';
import { socketAnswers } from './socket-probe.js';
import { ensurePrivateDir } from '../workspace/layout.js';
import type { CairnApi } from '../api/cairn-api.js';
import { daemonRoutes, type DaemonIdentity } from './routes.js';

/** How long a client may take to send a whole request (headers and body). */
const REQUEST_TIMEOUT_MS = 10_000;

/** A daemon's API server, listening on its Unix socket. */
export interface DaemonServer {
  socketPath: string;
  close(): Promise<void>;
}

/**
 * Serves the orchestrator API as HTTP over a Unix domain socket (mode 0600, in a 0700 folder, so no other
 * user can connect). A socket left by a killed daemon is removed; a live one, or one owned by another user,
 * is refused with the reason.
 */
export async function serveApi(api: CairnApi, socketPath: string, identity: DaemonIdentity, shutdown: () => void): Promise<DaemonServer> {
  ensurePrivateDir(dirname(socketPath));
  await clearStaleSocket(socketPath);
  const app = daemonRoutes(api, identity, shutdown);
  // Requests must arrive whole within seconds (a half-sent one is cut off); answers such as the event stream may
  // last as long as they need. Node checks these bounds every `connectionsCheckingInterval`.
  const server = createServer(
    { headersTimeout: REQUEST_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000, keepAliveTimeout: 5000 },
    getRequestListener(app.fetch),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(socketPath, 0o600);
  return { socketPath, close: () => closeServer(server, socketPath) };
}

async function clearStaleSocket(socketPath: string): Promise<void> {
  let stats: Stats;
  try {
    stats = lstatSync(socketPath);
  } catch {
    return;
  }
  if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) {
    throw new CairnError(
      'CAIRN_DAEMON',
      `the socket ${socketPath} belongs to another user (uid ${stats.uid}); Cairn will not use or remove it`,
      { hint: 'set CAIRN_HOME to a folder of your own' },
    );
  }
  if (!stats.isSocket()) throw new CairnError('CAIRN_DAEMON', `${socketPath} exists and is not a socket; move it away`);
  if (await socketAnswers(socketPath))
    throw new CairnError('CAIRN_DAEMON', `a daemon already serves this project on ${socketPath}`, { hint: 'stop it with `cairn down`' });
  rmSync(socketPath, { force: true });
}

function closeServer(server: Server, socketPath: string): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => {
      rmSync(socketPath, { force: true });
      resolve();
    });
    server.closeAllConnections();
  });
}
