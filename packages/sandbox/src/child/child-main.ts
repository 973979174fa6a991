import type { DoneMessage, FromChild, RunMessage, ToChild } from '../protocol.js';
import { type EngineHooks, runJavaScript, stripHostPaths } from './js-engine.js';
import { watchForOrphaning } from './orphan-watchdog.js';
import { runPython } from './python-engine.js';

// First of all: from here on the child cannot outlive the parent that forked it.
watchForOrphaning();

// A child process runs one program at a time for the parent that forked it, and nothing else.
const send = (message: FromChild) => process.send?.(message);
const pendingCalls = new Map<number, (reply: string) => void>();
let current: { runId: number; abort?: (status: 'timeout' | 'limit', message: string) => void } | undefined;
let nextCallId = 1;

async function handleRun(run: RunMessage): Promise<void> {
  current = { runId: run.runId };
  const hooks: EngineHooks = {
    call(name, args) {
      const callId = nextCallId++;
      return new Promise<string>((resolve) => {
        pendingCalls.set(callId, resolve);
        send({ type: 'call', runId: run.runId, callId, name, args });
      });
    },
    log(line) {
      send({ type: 'log', runId: run.runId, line });
    },
    onAbort(stop) {
      if (current?.runId === run.runId) current.abort = stop;
    },
  };
  let done: DoneMessage;
  try {
    done = run.engine === 'python' ? await runPython(run, hooks) : await runJavaScript(run, hooks);
  } catch (error) {
    done = {
      type: 'done',
      runId: run.runId,
      status: 'error',
      error: { name: 'Error', message: stripHostPaths(String((error as Error)?.message ?? error)) },
      cpuMs: 0,
      heapBytes: 0,
    };
  }
  for (const [callId, resolve] of pendingCalls) {
    resolve('0the run has ended');
    pendingCalls.delete(callId);
  }
  current = undefined;
  send(done);
}

process.on('message', (raw: unknown) => {
  const message = raw as ToChild;
  switch (message?.type) {
    case 'run':
      void handleRun(message);
      break;
    case 'reply': {
      const resolve = pendingCalls.get(message.callId);
      if (resolve !== undefined && current?.runId === message.runId) {
        pendingCalls.delete(message.callId);
        resolve((message.ok ? '1' : '0') + message.payload);
      }
      break;
    }
    case 'abort':
      if (current?.runId === message.runId) current.abort?.(message.status, message.message);
      break;
  }
});
// The parent is gone or let go of this child: die at once. A clean exit would wait for the isolate's thread,
// which a runaway program never releases, and would stop the watchdog first.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
send({ type: 'ready' });
