/**
 * Why a tool function's result is not plain JSON, or undefined when it is. Plain JSON is what crosses into the
 * program unchanged: null, booleans, finite numbers, strings, arrays and plain objects (properties holding
 * `undefined` are dropped, as JSON does). Everything else — a Buffer or any ArrayBuffer view, a Map, a Date, a
 * class instance, a function, a BigInt, NaN, a cycle — is refused with where it sits, instead of being
 * silently turned into something else by `JSON.stringify` (a Buffer would arrive as `{"type":"Buffer",…}`).
 */
export function plainJsonProblem(value: unknown): string | undefined {
  const stack: { value: unknown; at: string; depth: number }[] = [{ value, at: '', depth: 0 }];
  const open = new Set<object>();
  const exits: { node: object; depth: number }[] = [];
  while (stack.length > 0) {
    const { value: v, at, depth } = stack.pop()!;
    while (exits.length > 0 && exits.at(-1)!.depth >= depth) open.delete(exits.pop()!.node);
    const where = at === '' ? 'the result' : `the result at ${at}`;
    if (v === null || typeof v === 'string' || typeof v === 'boolean') continue;
    if (typeof v === 'number') {
      if (!Number.isFinite(v)) return `${where} is ${String(v)}, which JSON cannot carry`;
      continue;
    }
    if (typeof v !== 'object') return `${where} is a ${typeof v}`;
    if (ArrayBuffer.isView(v) || v instanceof ArrayBuffer)
      return `${where} is binary data (${kindOf(v)}); return text (decode it, e.g. with .toString('utf8')) or base64`;
    if (open.has(v)) return `${where} refers back to itself (a cycle)`;
    if (Array.isArray(v)) {
      open.add(v);
      exits.push({ node: v, depth });
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i] ?? null, at: `${at}[${i}]`, depth: depth + 1 });
      continue;
    }
    const proto = Object.getPrototypeOf(v) as unknown;
    if (proto !== Object.prototype && proto !== null) return `${where} is a ${kindOf(v)}, not a plain object`;
    open.add(v);
    exits.push({ node: v, depth });
    const entries = Object.entries(v as Record<string, unknown>);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [key, child] = entries[i]!;
      if (child !== undefined)
        stack.push({ value: child, at: `${at}.${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}`, depth: depth + 1 });
    }
  }
  return undefined;
}

function kindOf(value: object): string {
  const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
  return typeof name === 'string' && name !== '' ? name : 'object';
}
