import { Agent, type IncomingMessage, request } from 'node:http';

/** An answer from the daemon: its status and its body as it streams in. */
export interface SocketAnswer {
  statusCode: number;
  body: IncomingMessage;
}

/** Connections to one daemon's socket, kept open between calls. */
export function socketAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: 16 });
}

/**
 * One HTTP/1.1 request over the daemon's Unix socket (node's own http client: nothing to load but what Node
 * has): resolves with the answer once its headers have come; the body is read by the caller.
 */
export function requestOverSocket(
  agent: Agent,
  socketPath: string,
  method: 'GET' | 'POST',
  target: string,
  body?: object,
  signal?: AbortSignal,
): Promise<SocketAnswer> {
  return new Promise((resolve, reject) => {
    const payload = method === 'POST' ? JSON.stringify(body ?? {}) : undefined;
    const headers: Record<string, string | number> = { host: 'cairn' };
    if (payload !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) });
    // no TLS name to work out for a socket (Node would otherwise test the host name for an IP address: a large
    // pattern compiled on first use, a few milliseconds of every command's start)
    const options = { socketPath, servername: '', path: target, method, headers, agent, ...(signal === undefined ? {} : { signal }) };
    const req = request(options, (res) => resolve({ statusCode: res.statusCode ?? 0, body: res }));
    req.on('error', reject);
    req.end(payload);
  });
}

/** The whole body of an answer, as text. */
export async function readBody(answer: SocketAnswer): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
