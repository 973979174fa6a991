import type { CairnEvent } from '@cairn/api';
import { CairnError } from '@cairn/api';
import { parseJsonAs } from './daemon-answer.js';
import { readLines } from './ndjson-lines.js';
import { EVENT_STREAM } from './wire.js';

const DONE: IteratorResult<CairnEvent> = { value: undefined, done: true };

/**
 * The daemon's event stream as an iterator, once its `hello` line has come (so nothing sent after is missed).
 * Each line is parsed as an event; a line that is not one ends the stream with `CAIRN_DAEMON`. The stream ends
 * (and `close` is called once) when the daemon closes it, when `until` matches an event (that event is still
 * given), or on `return()`.
 */
export async function readEventStream(
  body: AsyncIterable<Buffer | string>,
  until: ((event: CairnEvent) => boolean) | undefined,
  close: () => void,
): Promise<AsyncIterator<CairnEvent>> {
  const lines = readLines(body);
  let ended = false;
  const end = (): IteratorResult<CairnEvent> => {
    if (!ended) {
      ended = true;
      close();
    }
    return DONE;
  };
  const first = await lines.next().catch(() => undefined);
  if (first === undefined || first.done === true) {
    end();
    throw new CairnError('CAIRN_DAEMON', 'the daemon closed the event stream before it began');
  }
  const hello = parseJsonAs(EVENT_STREAM.hello, first.value);
  if (!hello.ok) {
    end();
    throw new CairnError('CAIRN_DAEMON', `the daemon's event stream did not begin with hello: ${hello.problem}`);
  }
  return {
    async next(): Promise<IteratorResult<CairnEvent>> {
      if (ended) return DONE;
      const line = await lines.next().catch(() => undefined);
      if (ended || line === undefined || line.done === true) return end();
      const event = parseJsonAs(EVENT_STREAM.event, line.value);
      if (!event.ok) {
        end();
        throw new CairnError('CAIRN_DAEMON', `the daemon sent an event this client cannot read: ${event.problem}`, {
          hint: 'is the daemon the same version of Cairn as this command? restart it with `cairn down && cairn up`',
        });
      }
      if (until?.(event.value) === true) end();
      return { value: event.value, done: false };
    },
    async return(): Promise<IteratorResult<CairnEvent>> {
      return end();
    },
  };
}
