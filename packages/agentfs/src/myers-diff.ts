/**
 * Marks which elements of two integer sequences are outside a longest common subsequence (1 in `changedA` /
 * `changedB`), by Myers' O(ND) algorithm in linear space (E. W. Myers, "An O(ND) Difference Algorithm and Its
 * Variations", 1986): each box is split at the middle snake of its shortest edit path, and the halves are solved
 * the same way. A box whose search passes `costLimit` edits is split at the point the search got furthest, so
 * the time stays near O((N + M) · costLimit) on inputs that differ almost everywhere; the edits are then valid
 * but not always the fewest (what git's diff does too).
 */
export function markChanges(a: Int32Array, b: Int32Array, changedA: Uint8Array, changedB: Uint8Array, costLimit: number): void {
  const offset = b.length + 1;
  const forward = new Int32Array(a.length + b.length + 3);
  const backward = new Int32Array(a.length + b.length + 3);
  const split = new Int32Array(4);
  const boxes: number[] = [0, a.length, 0, b.length];
  while (boxes.length > 0) {
    let bHi = boxes.pop()!;
    let bLo = boxes.pop()!;
    let aHi = boxes.pop()!;
    let aLo = boxes.pop()!;
    while (aLo < aHi && bLo < bHi && a[aLo] === b[bLo]) {
      aLo++;
      bLo++;
    }
    while (aLo < aHi && bLo < bHi && a[aHi - 1] === b[bHi - 1]) {
      aHi--;
      bHi--;
    }
    if (aLo === aHi || bLo === bHi) {
      changedA.fill(1, aLo, aHi);
      changedB.fill(1, bLo, bHi);
      continue;
    }
    findSplit(a, b, aLo, aHi, bLo, bHi, forward, backward, offset, costLimit, split);
    const [x0, y0, x1, y1] = split as unknown as [number, number, number, number];
    const stuck = (x0 === aLo && y0 === bLo && x1 === aLo && y1 === bLo) || (x0 === aHi && y0 === bHi && x1 === aHi && y1 === bHi);
    if (stuck) {
      changedA.fill(1, aLo, aHi);
      changedB.fill(1, bLo, bHi);
      continue;
    }
    boxes.push(x1, aHi, y1, bHi, aLo, x0, bLo, y0);
  }
}

/**
 * Finds where to split the box `a[aLo, aHi) × b[bLo, bHi)` (both non-empty): the middle snake of a shortest edit
 * path, from (`out[0]`, `out[1]`) to (`out[2]`, `out[3]`), or past `costLimit` the furthest point reached.
 *
 * Forward paths run from the box's top-left corner on diagonals k = x − y (relative to it), `forward[offset + k]`
 * holding the furthest x reached; backward paths run from the bottom-right corner on diagonals c = u − v, with
 * u, v counted back from the corner, `backward[offset + c]` holding the furthest u. Forward diagonal k meets
 * backward diagonal c where k = n − m − c. A diagonal that cannot be reached holds −1.
 */
function findSplit(
  a: Int32Array,
  b: Int32Array,
  aLo: number,
  aHi: number,
  bLo: number,
  bHi: number,
  forward: Int32Array,
  backward: Int32Array,
  offset: number,
  costLimit: number,
  out: Int32Array,
): void {
  const n = aHi - aLo;
  const m = bHi - bLo;
  const delta = n - m;
  const odd = (delta & 1) !== 0;
  for (let d = 0; ; d++) {
    const lo = Math.max(-d, -m);
    const hi = Math.min(d, n);
    // the diagonals the previous step wrote: of its parity, within its range
    const prevLo = Math.max(-(d - 1), -m);
    const prevHi = Math.min(d - 1, n);
    for (let k = lo + ((lo + d) & 1); k <= hi; k += 2) {
      let x = -1;
      if (d === 0) x = 0;
      else {
        if (k + 1 >= prevLo && k + 1 <= prevHi) {
          const down = forward[offset + k + 1]!;
          if (down >= 0 && down - k <= m) x = down;
        }
        if (k - 1 >= prevLo && k - 1 <= prevHi) {
          const right = forward[offset + k - 1]!;
          if (right >= 0 && right + 1 <= n && right + 1 > x) x = right + 1;
        }
      }
      if (x < 0) {
        forward[offset + k] = -1;
        continue;
      }
      const xStart = x;
      let y = x - k;
      while (x < n && y < m && a[aLo + x] === b[bLo + y]) {
        x++;
        y++;
      }
      forward[offset + k] = x;
      const c = delta - k;
      if (odd && d > 0 && c >= prevLo && c <= prevHi) {
        const u = backward[offset + c]!;
        if (u >= 0 && x + u >= n) {
          setSplit(out, aLo + xStart, bLo + xStart - k, aLo + x, bLo + y);
          return;
        }
      }
    }
    for (let c = lo + ((lo + d) & 1); c <= hi; c += 2) {
      let u = -1;
      if (d === 0) u = 0;
      else {
        if (c + 1 >= prevLo && c + 1 <= prevHi) {
          const up = backward[offset + c + 1]!;
          if (up >= 0 && up - c <= m) u = up;
        }
        if (c - 1 >= prevLo && c - 1 <= prevHi) {
          const left = backward[offset + c - 1]!;
          if (left >= 0 && left + 1 <= n && left + 1 > u) u = left + 1;
        }
      }
      if (u < 0) {
        backward[offset + c] = -1;
        continue;
      }
      const uStart = u;
      let v = u - c;
      while (u < n && v < m && a[aHi - 1 - u] === b[bHi - 1 - v]) {
        u++;
        v++;
      }
      backward[offset + c] = u;
      const k = delta - c;
      if (!odd && k >= lo && k <= hi) {
        const x = forward[offset + k]!;
        if (x >= 0 && x + u >= n) {
          setSplit(out, aHi - u, bHi - v, aHi - uStart, bHi - (uStart - c));
          return;
        }
      }
    }
    if (d >= costLimit) {
      splitFurthest(n, m, lo, hi, d, forward, backward, offset, out);
      out[0]! += aLo;
      out[1]! += bLo;
      out[2]! += aLo;
      out[3]! += bLo;
      return;
    }
  }
}

/** The point (relative to the box) a forward or backward search of `d` steps got furthest from its corner. */
function splitFurthest(
  n: number,
  m: number,
  lo: number,
  hi: number,
  d: number,
  forward: Int32Array,
  backward: Int32Array,
  offset: number,
  out: Int32Array,
): void {
  let bestForward = -1;
  let fx = 0;
  let fy = 0;
  let bestBackward = -1;
  let bu = 0;
  let bv = 0;
  for (let k = lo + ((lo + d) & 1); k <= hi; k += 2) {
    const x = forward[offset + k]!;
    if (x >= 0 && 2 * x - k > bestForward && !(x === n && x - k === m)) {
      bestForward = 2 * x - k;
      fx = x;
      fy = x - k;
    }
    const u = backward[offset + k]!;
    if (u >= 0 && 2 * u - k > bestBackward && !(u === n && u - k === m)) {
      bestBackward = 2 * u - k;
      bu = u;
      bv = u - k;
    }
  }
  if (bestForward >= bestBackward) setSplit(out, fx, fy, fx, fy);
  else setSplit(out, n - bu, m - bv, n - bu, m - bv);
}

function setSplit(out: Int32Array, x0: number, y0: number, x1: number, y1: number): void {
  out[0] = x0;
  out[1] = y0;
  out[2] = x1;
  out[3] = y1;
}
