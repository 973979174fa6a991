import type { CairnEvent } from '@cairn/daemon/client';
import pc from 'picocolors';
import { stdoutLost } from './output-loss.js';
import { forTerminal } from './render/terminal-text.js';

/** How a command prints: for people (colour only on a TTY, never with NO_COLOR), or NDJSON with `--json`. */
export interface Output {
  readonly json: boolean;
  readonly color: boolean;
  readonly tty: boolean;
  readonly debug: boolean;
  /** A line for people on stdout (nothing in JSON mode). */
  line(text?: string): void;
  /** A line for people on stderr (notes, progress); nothing in JSON mode. */
  note(text: string): void;
  /** An event: NDJSON `{"type":"event","event":…}` in JSON mode, nothing otherwise (commands render their own). */
  event(event: CairnEvent): void;
  /** The command's outcome: NDJSON `{"type":"result","ok":…}` in JSON mode. */
  result(ok: boolean, fields: Record<string, unknown>): void;
  /** One error line with a hint (stderr), or `{"type":"error",…}` on stdout in JSON mode. */
  error(code: string, message: string, hint?: string): void;
  paint: Paint;
}

/** Colour functions that do nothing when colour is off. */
export interface Paint {
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
}

/** The output of one command run. */
export function createOutput(options: { json: boolean; debug: boolean; color?: boolean }): Output {
  const tty = process.stdout.isTTY === true;
  const color = !options.json && (options.color ?? (tty && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb'));
  const colors = pc.createColors(color);
  const paint: Paint = {
    bold: colors.bold,
    dim: colors.dim,
    red: colors.red,
    green: colors.green,
    yellow: colors.yellow,
    cyan: colors.cyan,
    magenta: colors.magenta,
  };
  // once stdout has failed, what is left for it is dropped (see output-loss.ts)
  const write = (stream: NodeJS.WriteStream, text: string) => {
    if (stream !== process.stdout || stdoutLost() === undefined) stream.write(text + '\n');
  };
  // what people read on a terminal shows control characters instead of obeying them (agents write much of it)
  const show = (stream: NodeJS.WriteStream, text: string) => write(stream, stream.isTTY === true ? forTerminal(text) : text);
  return {
    json: options.json,
    color,
    tty,
    debug: options.debug,
    paint,
    line(text = '') {
      if (!options.json) show(process.stdout, text);
    },
    note(text) {
      if (!options.json) show(process.stderr, text);
    },
    event(event) {
      if (options.json) write(process.stdout, JSON.stringify({ type: 'event', event }));
    },
    result(ok, fields) {
      if (options.json) write(process.stdout, JSON.stringify({ type: 'result', ok, ...fields }));
    },
    error(code, message, hint) {
      if (options.json) {
        write(
          process.stdout,
          JSON.stringify(hint === undefined ? { type: 'error', code, message } : { type: 'error', code, message, hint }),
        );
        return;
      }
      const c = pc.createColors(process.stderr.isTTY === true && !('NO_COLOR' in process.env));
      show(process.stderr, `${c.red(c.bold('error:'))} ${message}`);
      if (hint !== undefined) show(process.stderr, `${c.dim('hint:')} ${hint}`);
    },
  };
}
