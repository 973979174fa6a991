import ivm from 'isolated-vm';

/** Where the host functions on a fresh context's global object lead: set by the one run that takes it. */
export interface IsolateRoute {
  call(name: string, args: string): Promise<string>;
  log(line: string): void;
  overLimit(): void;
}

/** A fresh isolate and context, the host functions already on its global object; no program has run in it. */
export interface FreshIsolate {
  isolate: ivm.Isolate;
  context: ivm.Context;
  route: { current?: IsolateRoute };
}

/** Makes an isolate of `memoryMb` and its context, with the host functions bootstrap takes off the global object. */
export async function makeFreshIsolate(memoryMb: number): Promise<FreshIsolate> {
  const isolate = new ivm.Isolate({ memoryLimit: memoryMb });
  const route: FreshIsolate['route'] = {};
  try {
    const context = await isolate.createContext();
    const global = context.global;
    await global.set(
      '__cairn_call',
      new ivm.Reference((name: unknown, args: unknown) =>
        route.current === undefined ? Promise.resolve('0the run has ended') : route.current.call(String(name), String(args)),
      ),
    );
    await global.set('__cairn_log', new ivm.Callback((line: string) => route.current?.log(String(line)), { ignored: true }));
    await global.set('__cairn_over_limit', new ivm.Callback(() => route.current?.overLimit(), { ignored: true }));
    return { isolate, context, route };
  } catch (error) {
    if (!isolate.isDisposed) isolate.dispose();
    throw error;
  }
}

/**
 * One isolate made ahead while the child is idle, for the next run with the same memory limit, so a run does
 * not wait for an isolate and its context to be made. Each isolate serves one run only: a spare is always fresh.
 */
export class SpareIsolate {
  private spare: { memoryMb: number; made: Promise<FreshIsolate | undefined> } | undefined;

  /** A fresh isolate for a run: the spare when it has this memory limit, else a new one. */
  async take(memoryMb: number): Promise<FreshIsolate> {
    const spare = this.spare;
    this.spare = undefined;
    if (spare !== undefined) {
      if (spare.memoryMb === memoryMb) {
        const fresh = await spare.made;
        if (fresh !== undefined) return fresh;
      } else void spare.made.then((fresh) => fresh?.isolate.dispose());
    }
    return makeFreshIsolate(memoryMb);
  }

  /** Starts making the next run's isolate, unless one is already made or being made. */
  prepare(memoryMb: number): void {
    if (this.spare !== undefined) return;
    this.spare = { memoryMb, made: makeFreshIsolate(memoryMb).catch(() => undefined) };
  }
}
