/** What the bootstrap of one run needs to know. */
export interface BootstrapParams {
  functions: readonly string[];
  input: string;
  seed: number;
  clockMs: number;
  messageBytes: number;
  outputBytes: number;
}

/**
 * The trusted script that prepares a fresh context before the program runs. It takes the host reference and
 * callback off the global object (so the program can reach them only through the wrappers, which keep
 * them in a closure and call them with options objects the program cannot touch), removes WebAssembly,
 * SharedArrayBuffer and Atomics, makes Math.random and Date deterministic, captures console output, and
 * defines each tool function as an async global that passes JSON text both ways. Everything it relies on
 * is captured before the program can change it.
 */
export function bootstrapSource(params: BootstrapParams): string {
  return `"use strict";
const __cairn = (() => {
  const g = globalThis;
  const hostCall = g.__cairn_call;
  const hostLog = g.__cairn_log;
  const hostOverLimit = g.__cairn_over_limit;
  delete g.__cairn_call;
  delete g.__cairn_log;
  delete g.__cairn_over_limit;
  for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics"]) delete g[name];
  // A resizable buffer grows outside the isolate's memory accounting: no growing at all.
  for (const name of ["resize", "transfer", "transferToFixedLength"]) delete ArrayBuffer.prototype[name];
  const stringify = JSON.stringify, parse = JSON.parse, toText = String, ErrorCtor = Error, TypeErrorCtor = TypeError;
  const freeze = Object.freeze, defineProperty = Object.defineProperty, create = Object.create, assign = Object.assign;
  const hostApply = hostCall.apply.bind(hostCall);
  const callOptions = freeze(assign(create(null), { result: freeze(assign(create(null), { promise: true })) }));
  const imul = Math.imul, match = RegExp.prototype.exec, mapArray = Array.prototype.map, join = Array.prototype.join;
  const MESSAGE_BYTES = ${JSON.stringify(params.messageBytes)};

  let state = ${JSON.stringify(params.seed >>> 0)} >>> 0;
  Math.random = function random() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = imul(t ^ (t >>> 15), t | 1);
    t ^= t + imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const RealDate = Date, NOW = ${JSON.stringify(params.clockMs)};
  function FixedDate(...args) {
    if (!new.target) return new RealDate(NOW).toString();
    return args.length === 0 ? new RealDate(NOW) : new RealDate(...args);
  }
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = () => NOW;
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  defineProperty(RealDate.prototype, "constructor", { value: FixedDate });
  g.Date = FixedDate;

  const show = (value) => {
    if (typeof value === "string") return value;
    try {
      const text = stringify(value);
      return text === undefined ? toText(value) : text;
    } catch {
      try { return toText(value); } catch { return "[unprintable]"; }
    }
  };
  const OUTPUT_BYTES = ${JSON.stringify(params.outputBytes)};
  let logged = 0;
  let overLimit = false;
  const log = (level) => (...args) => {
    if (overLimit) return;
    let line;
    try { line = join.call(mapArray.call(args, show), " "); } catch { line = "[unprintable]"; }
    if (level !== "log") line = "[" + level + "] " + line;
    logged += line.length + 1;
    if (logged > OUTPUT_BYTES) {
      overLimit = true;
      hostOverLimit();
      return;
    }
    hostLog(line);
  };
  g.console = freeze({ log: log("log"), info: log("info"), warn: log("warn"), error: log("error"), debug: log("debug") });

  class ToolError extends ErrorCtor {}
  defineProperty(ToolError.prototype, "name", { value: "ToolError" });
  const tool = (name) => async function (...args) {
    let json;
    try { json = stringify(args); } catch (error) { throw new TypeErrorCtor(name + ": arguments must be JSON values"); }
    if (typeof json !== "string") throw new TypeErrorCtor(name + ": arguments must be JSON values");
    if (json.length > MESSAGE_BYTES) throw new ToolError(name + ": arguments are larger than " + MESSAGE_BYTES + " bytes");
    const reply = await hostApply(undefined, [name, json], callOptions);
    if (typeof reply !== "string" || reply.length === 0) throw new ToolError(name + ": no reply");
    if (reply[0] === "1") return parse(reply.slice(1));
    throw new ToolError(reply.slice(1));
  };
  for (const name of ${JSON.stringify(params.functions)}) {
    defineProperty(g, name, { value: tool(name), writable: false, configurable: false, enumerable: true });
  }
  g.input = parse(${JSON.stringify(params.input)});

  // What the program threw, as a name and a message: an Error (or anything with a text message) as it is,
  // any other value named for what it is, never as "undefined: undefined".
  const describe = (error) => {
    const out = { name: "Error", message: "" };
    try {
      const isObject = (typeof error === "object" && error !== null) || typeof error === "function";
      let message;
      try { message = isObject ? error.message : undefined; } catch {}
      if (error instanceof ErrorCtor || typeof message === "string") {
        try { if (typeof error.name === "string" && error.name !== "") out.name = error.name.slice(0, 200); } catch {}
        out.message = typeof message === "string" ? message.slice(0, 4000) : "";
        try {
          const at = match.call(/program\\.js:(\\d+):(\\d+)/, toText(error.stack));
          if (at) { out.line = +at[1]; out.column = +at[2]; }
        } catch {}
      } else if (typeof error === "string") {
        out.message = error.slice(0, 4000);
      } else {
        out.message = "the program threw " + (isObject ? "a value that is not an Error: " : "") + show(error).slice(0, 300);
      }
    } catch {
      out.message = "[error could not be described]";
    }
    return out;
  };
  return freeze({
    finish: async (program) => {
      let value;
      try {
        value = await program();
      } catch (error) {
        return stringify({ ok: false, error: describe(error) });
      }
      let json;
      try {
        json = value === undefined ? "null" : stringify(value);
      } catch (error) {
        return stringify({ ok: false, error: { name: "TypeError", message: "the program's result is not a JSON value: " + describe(error).message } });
      }
      if (typeof json !== "string") return stringify({ ok: false, error: { name: "TypeError", message: "the program's result is not a JSON value" } });
      return stringify({ ok: true, value: json });
    },
  });
})();
`;
}

/** Wraps a checked program so that its first line is line 1 of `program.js` (compile with lineOffset -1). */
export function programSource(code: string): string {
  return `__cairn.finish(async function () {"use strict";\n${code}\n});`;
}
