import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A proxy on 127.0.0.1 to `target` that flips one byte in the middle of every snapshot it passes on. */
export async function startCorruptingProxy(target: string): Promise<{ url: string; snapshots: number; close(): Promise<void> }> {
  const state = { snapshots: 0 };
  const server: Server = createServer((req, res) => {
    const upstream = httpRequest(new URL(req.url ?? '/', target), { method: req.method, headers: req.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        if ((req.url ?? '').startsWith('/snapshots/') && body.length > 0) {
          state.snapshots++;
          const middle = body.length >> 1;
          body[middle] = (body[middle] ?? 0) ^ 0xff;
        }
        res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/octet-stream' }).end(body);
      });
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get snapshots() {
      return state.snapshots;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
