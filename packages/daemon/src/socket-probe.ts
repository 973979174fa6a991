import { request } from 'node:http';
import { connect } from 'node:net';

/** True when a daemon answers on the socket. */
export function socketAnswers(socketPath: string, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(socketPath);
    const done = (alive: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(alive);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * True when the daemon answers `GET /health` on a connection of its own within `timeoutMs`: a daemon that is
 * stopped (SIGSTOP) or stuck still has its connections accepted by the kernel, but never answers.
 */
export function healthAnswers(socketPath: string, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let timer: NodeJS.Timeout | undefined;
    // no TLS name to work out for a socket (see socket-http.ts)
    const options = { socketPath, servername: '', path: '/health', method: 'GET', headers: { host: 'cairn' }, agent: false };
    const req = request(options, (res) => {
      res.resume();
      done(true);
    });
    const done = (answered: boolean) => {
      clearTimeout(timer);
      req.destroy();
      resolve(answered);
    };
    // a probe never keeps a process alive: the request it stands beside does, while it waits
    timer = setTimeout(() => done(false), timeoutMs).unref();
    req.on('socket', (socket) => socket.unref());
    req.on('error', () => done(false));
    req.end();
  });
}
