/**
 * What a command does when its output cannot be written: a reader that closed the pipe (`cairn ls | head -1`,
 * EPIPE) is normal, and ends a command that only reads at once, quietly, with exit 0; a full disk, an I/O error
 * or any other failure of stdout costs one line on stderr, and exit 1 for a command that only reads (its output
 * was all it had to give). A command that changes something (spawn, accept, up, …) is never cut short by its
 * output: the agent it runs runs on, the accept it makes is made, and its exit code says how that work went.
 */

let lost: NodeJS.ErrnoException | undefined;
let readsOnly = true;
let watching = false;

/** The first error that stopped stdout, once one has. */
export function stdoutLost(): NodeJS.ErrnoException | undefined {
  return lost;
}

/** Says whether the command now running only reads (the default until a command is chosen: help, version). */
export function setReadsOnly(value: boolean): void {
  readsOnly = value;
}

/** Handles failed writes to stdout and stderr from now on, as this file's comment says; once per process. */
export function watchOutputStreams(): void {
  if (watching) return;
  watching = true;
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (lost !== undefined) return;
    lost = error;
    if (error.code !== 'EPIPE') {
      try {
        process.stderr.write(`cairn: stdout cannot be written (${wordsFor(error)}); the output is incomplete\n`);
      } catch {
        // stderr is gone too: nothing is left to tell
      }
    }
    if (readsOnly) process.exit(error.code === 'EPIPE' ? (process.exitCode ?? 0) : 1);
  });
  // nothing is left to tell when stderr cannot be written; the command goes on
  process.stderr.on('error', () => undefined);
}

function wordsFor(error: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ENOSPC: 'no space left on the device',
    EDQUOT: 'the disk quota is used up',
    EIO: 'an input/output error',
    EBADF: 'it is closed',
    EFBIG: 'the file is too large',
  };
  const code = error.code ?? 'error';
  return words[code] === undefined ? `${code}: ${error.message}` : `${words[code]}, ${code}`;
}
