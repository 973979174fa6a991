import { chmodSync, lstatSync, rmSync, type Stats } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import { dirname } from 'node:path';
import type { CairnApi } from '@cairn/api';
import { CairnError } from '@cairn/api';
import { ensurePrivateDir } from '@cairn/orchestrator';
import type { DaemonIdentity } from './routes.js';
import { socketAnswers } from './socket-probe.js';

/** How long a client may take to send a whole request (headers and body). */
const REQUEST_TIMEOUT_MS = 10_000;

/** A daemon's API server, listening on its Unix socket. */
export interface DaemonServer {
  socketPath: string;
  close(): Promise<void>;
  /** Loads the routes' code now, so the first request need not (a request that comes first waits for it). */
  warm(): void;
}

/**
 * Serves the orchestrator API as HTTP over a Unix domain socket (mode 0600, in a 0700 folder, so no other
 * user can connect). A socket left by a killed daemon is removed; a live one, or one owned by another user,
 * is refused with the reason.
 *
 * The routes' code (Hono, and with it Node's HTTP/2, TLS and fetch modules, about 40 ms to load) is loaded by
 * the first request, or by `warm`: the daemon listens, and says it is ready, without waiting for it.
 */
export async function serveApi(api: CairnApi, socketPath: string, identity: DaemonIdentity, shutdown: () => void): Promise<DaemonServer> {
  ensurePrivateDir(dirname(socketPath));
  await clearStaleSocket(socketPath);
  let routes: Promise<RequestListener> | undefined;
  const loadRoutes = () => (routes ??= routesListener(api, identity, shutdown));
  // Requests must arrive whole within seconds (a half-sent one is cut off); answers such as the event stream may
  // last as long as they need. Node checks these bounds every `connectionsCheckingInterval`.
  const server = createServer(
    { headersTimeout: REQUEST_TIMEOUT_MS, requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 1000, keepAliveTimeout: 5000 },
    (request, response) => {
      loadRoutes().then(
        (listener) => listener(request, response),
        (error: Error) => answerUnloaded(response, error),
      );
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  chmodSync(socketPath, 0o600);
  return { socketPath, close: () => closeServer(server, socketPath), warm: () => void loadRoutes().catch(() => undefined) };
}

async function routesListener(api: CairnApi, identity: DaemonIdentity, shutdown: () => void): Promise<RequestListener> {
  const [{ getRequestListener }, { daemonRoutes }] = await Promise.all([import('@hono/node-server'), import('./routes.js')]);
  const listener = getRequestListener(daemonRoutes(api, identity, shutdown).fetch);
  return (request: IncomingMessage, response: ServerResponse) => void listener(request, response);
}

function answerUnloaded(response: ServerResponse, error: Error): void {
  response.writeHead(500, { 'content-type': 'application/json' });
  response.end(JSON.stringify({ code: 'CAIRN_INTERNAL', message: `the daemon could not load its routes: ${error.message}` }));
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
