import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { attach } from 'neovim';
import { Bridge, cairnCommand } from './bridge.js';

/**
 * The bridge process. Neovim starts it with `jobstart({ 'node', '…/dist/main.js', '--project', root }, { rpc = true })`
 * and talks msgpack-RPC over its stdin and stdout, so nothing else may write to stdout.
 */
const { values } = parseArgs({ options: { project: { type: 'string' }, cairn: { type: 'string' } }, strict: true });
const nvim = attach({ reader: process.stdin, writer: process.stdout });
const bridge = new Bridge(nvim, { root: resolve(values.project ?? process.cwd()), cairn: cairnCommand(values.cairn) });
bridge.listen();
process.stdin.on('end', () => {
  void bridge.close().finally(() => process.exit(0));
});
await bridge.start();
