import { setTimeout as delay } from 'node:timers/promises';
import { CairnError } from '@cairn/api';
import { readPidFile } from './pid-file.js';
import { socketAnswers } from './socket-probe.js';

/**
 * The error for a daemon that is there (its socket takes connections) but answers nothing: stopped, or stuck.
 * `pidPath` names its process when its pid file can be read.
 */
export function notAnsweringError(socketPath: string, pidPath: string | undefined, waitedMs: number, timeoutMs: number): CairnError {
  const pid = pidPath === undefined ? undefined : readPidFile(pidPath)?.pid;
  const who = pid === undefined ? `the daemon at ${socketPath}` : `the daemon (pid ${pid})`;
  const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  const stop =
    pid === undefined
      ? 'stop it with `cairn down`, or end its process'
      : `\`cairn down\` stops it (or \`kill ${pid}\`, then \`kill -9 ${pid}\` if it stays); one stopped with Ctrl-Z or SIGSTOP goes on after \`kill -CONT ${pid}\``;
  return new CairnError(
    'CAIRN_DAEMON',
    `${who} does not answer: a request waited ${seconds(waitedMs)}, and a second request got no answer in ${seconds(timeoutMs)}`,
    {
      hint: `${stop}; without a daemon, commands run by themselves (CAIRN_DAEMON_TIMEOUT_MS sets how long a daemon is given, now ${timeoutMs} ms)`,
    },
  );
}

/**
 * The error for a request the daemon did not answer. The socket is tried once more: when nothing answers there
 * now, the daemon is gone (stopped, killed, crashed), and the hint says how to go on without it.
 */
export async function unreachableError(socketPath: string, cause: unknown): Promise<CairnError> {
  const why = cause instanceof Error ? cause.message : String(cause);
  const what = `the daemon at ${socketPath} did not answer: ${why}`;
  if (await stillAnswers(socketPath))
    return new CairnError('CAIRN_DAEMON', what, { hint: 'restart it with `cairn down && cairn up`', cause });
  return new CairnError('CAIRN_DAEMON', `${what}; nothing answers there now (the daemon was stopped, killed or crashed)`, {
    hint: 'see where things stand with `cairn ls`: without a daemon a command runs by itself, and first finishes an accept or undo the daemon left half done; `cairn up` starts a new daemon',
    cause,
  });
}

/** How long the socket of a daemon that did not answer is given to answer again. */
const GONE_PROBE_MS = 1000;

/**
 * True when a daemon still answers on the socket, asked twice a moment apart: a daemon being killed may drop the
 * request's connection a moment before it stops listening.
 */
async function stillAnswers(socketPath: string): Promise<boolean> {
  if (!(await socketAnswers(socketPath, GONE_PROBE_MS))) return false;
  await delay(GONE_SETTLE_MS);
  return socketAnswers(socketPath, GONE_PROBE_MS);
}

/** How long a daemon that dropped a request is given to finish going away before its socket is tried again. */
const GONE_SETTLE_MS = 200;
