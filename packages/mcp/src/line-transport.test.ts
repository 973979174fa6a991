import { PassThrough } from 'node:stream';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { LineTransport } from './line-transport.js';

/** A transport over two in-memory pipes: what it passes on, and each line it answers with. */
async function harness(maxBytes?: number) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new LineTransport(input, output, maxBytes);
  const messages: JSONRPCMessage[] = [];
  const answers: Record<string, unknown>[] = [];
  let closed = false;
  transport.onmessage = (message) => messages.push(message);
  transport.onclose = () => {
    closed = true;
  };
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      answers.push(JSON.parse(buffered.slice(0, at)) as Record<string, unknown>);
      buffered = buffered.slice(at + 1);
    }
  });
  await transport.start();
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { input, transport, messages, answers, settle, closed: () => closed };
}

describe('LineTransport', () => {
  it('passes on each JSON-RPC line, however the pipe cuts it, with or without a carriage return', async () => {
    const h = await harness();
    const line = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
    h.input.write(line.slice(0, 10));
    h.input.write(`${line.slice(10)}\r\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n\n`);
    await h.settle();
    expect(h.messages).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
    ]);
    expect(h.answers).toEqual([]);
  });

  it('answers a line that is not JSON, and JSON that is not JSON-RPC, and goes on', async () => {
    const h = await harness();
    h.input.write('{oops\n{"id":4,"method":7}\n[1,2]\n{"jsonrpc":"2.0","id":5,"method":"ping"}\n');
    await h.settle();
    expect(h.answers).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^parse error: the line is not JSON/) } },
      { jsonrpc: '2.0', id: 4, error: { code: -32600, message: expect.stringMatching(/^invalid request: not a JSON-RPC 2\.0 message/) } },
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.any(String) } },
    ]);
    expect(h.messages).toEqual([{ jsonrpc: '2.0', id: 5, method: 'ping' }]);
  });

  it('refuses a line over the limit to its request id without holding it whole, and goes on', async () => {
    const h = await harness(1000);
    const content = 'x'.repeat(5000);
    const big = `{"method":"tools/call","params":{"name":"write_file","arguments":{"content":"${content} \\"id\\": 99"}},"jsonrpc":"2.0","id":42}`;
    for (let at = 0; at < big.length; at += 300) h.input.write(big.slice(at, at + 300));
    h.input.write('\n{"jsonrpc":"2.0","id":43,"method":"ping"}\n');
    await h.settle();
    expect(h.answers).toEqual([
      {
        jsonrpc: '2.0',
        id: 42,
        error: {
          code: -32600,
          message: expect.stringMatching(new RegExp(`^the message is ${big.length} bytes long, more than the 1000 bytes`)),
        },
      },
    ]);
    expect(h.messages).toEqual([{ jsonrpc: '2.0', id: 43, method: 'ping' }]);
  });

  it('closes when its input ends, and sends nothing after', async () => {
    const h = await harness();
    h.input.end();
    await h.settle();
    expect(h.closed()).toBe(true);
    await h.transport.send({ jsonrpc: '2.0', id: 1, result: {} });
    await h.settle();
    expect(h.answers).toEqual([]);
  });
});
