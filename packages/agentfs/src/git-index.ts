/**
 * The path names of a git index, as bytes in the index's own order (byte order, which binary search needs), read
 * without decoding a name: 50,000 entries cost a few milliseconds, so asking whether a path is tracked does not
 * have to start `git ls-files`.
 */
export class IndexNames {
  private constructor(
    private readonly bytes: Buffer,
    private readonly starts: Int32Array,
    private readonly ends: Int32Array,
    readonly count: number,
  ) {}

  /**
   * Reads an index (versions 2 to 4). Undefined when the bytes are not an index this reader knows, or the index
   * is split (`link` extension), whose entries live partly in another file.
   */
  static read(data: Uint8Array): IndexNames | undefined {
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    if (bytes.byteLength < 12 || bytes.readUInt32BE(0) !== 0x44495243 /* DIRC */) return undefined;
    const version = bytes.readUInt32BE(4);
    if (version < 2 || version > 4) return undefined;
    const count = bytes.readUInt32BE(8);
    if (count > bytes.byteLength / 62) return undefined;
    const starts = new Int32Array(count);
    const ends = new Int32Array(count);
    // version 4 names are stored against the previous name: rebuilt, one after the other, in `names`
    let names = version === 4 ? Buffer.allocUnsafe(Math.max(1024, bytes.byteLength * 2)) : bytes;
    let used = 0;
    let at = 12;
    try {
      for (let n = 0; n < count; n++) {
        const entry = at;
        const flags = bytes.readUInt16BE(at + 60);
        at += 62;
        if (version >= 3 && (flags & 0x4000) !== 0) at += 2;
        if (version === 4) {
          let byte = bytes[at++]!;
          let strip = byte & 0x7f;
          while ((byte & 0x80) !== 0) {
            byte = bytes[at++]!;
            strip = ((strip + 1) << 7) | (byte & 0x7f);
          }
          const end = bytes.indexOf(0, at);
          const previous = n === 0 ? 0 : ends[n - 1]! - starts[n - 1]!;
          if (end < 0 || strip > previous) return undefined;
          const kept = previous - strip;
          const length = kept + (end - at);
          if (used + length > names.byteLength) {
            const grown = Buffer.allocUnsafe(Math.max(names.byteLength * 2, used + length));
            names.copy(grown, 0, 0, used);
            names = grown;
          }
          if (n > 0) names.copyWithin(used, starts[n - 1]!, starts[n - 1]! + kept);
          bytes.copy(names, used + kept, at, end);
          starts[n] = used;
          ends[n] = used + length;
          used += length;
          at = end + 1;
        } else {
          const short = flags & 0xfff;
          const end = short < 0xfff ? at + short : bytes.indexOf(0, at);
          if (end < 0 || end >= bytes.byteLength || bytes[end] !== 0) return undefined;
          starts[n] = at;
          ends[n] = end;
          // entries are padded with 1 to 8 NULs to a multiple of 8 bytes
          at = entry + ((end - entry + 8) & ~7);
        }
        if (at > bytes.byteLength) return undefined;
      }
      for (; at + 8 <= bytes.byteLength - 20; at += 8 + bytes.readUInt32BE(at + 4)) {
        if (bytes.readUInt32BE(at) === 0x6c696e6b /* link */) return undefined;
      }
    } catch {
      return undefined;
    }
    return new IndexNames(names, starts, ends, count);
  }

  /** True when the index holds exactly this path (UTF-8 bytes). */
  has(path: Buffer): boolean {
    const at = this.lowerBound(path);
    return at < this.count && this.compare(at, path) === 0;
  }

  /** True when the index holds a path that starts with these bytes. */
  hasPrefix(prefix: Buffer): boolean {
    const at = this.lowerBound(prefix);
    return at < this.count && this.ends[at]! - this.starts[at]! >= prefix.length && this.compare(at, prefix, prefix.length) === 0;
  }

  /** Every path, decoded, in the index's order, each once (a path in conflict has an entry per stage). */
  paths(): string[] {
    const out: string[] = [];
    for (let n = 0; n < this.count; n++) {
      const path = this.bytes.toString('utf8', this.starts[n], this.ends[n]);
      if (out[out.length - 1] !== path) out.push(path);
    }
    return out;
  }

  /** The first entry whose name is not below `key` in byte order. */
  private lowerBound(key: Buffer): number {
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.compare(mid, key) < 0) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Entry `n`'s name (its first `length` bytes, if given) against `key`, in byte order. */
  private compare(n: number, key: Buffer, length?: number): number {
    const start = this.starts[n]!;
    const end = length === undefined ? this.ends[n]! : Math.min(this.ends[n]!, start + length);
    const bytes = this.bytes;
    const shorter = Math.min(end - start, key.length);
    for (let i = 0; i < shorter; i++) {
      const diff = bytes[start + i]! - key[i]!;
      if (diff !== 0) return diff;
    }
    return end - start - key.length;
  }
}

/** The paths of a git index, as `git ls-files` lists them; undefined when `IndexNames.read` cannot read it. */
export function readIndexPaths(data: Uint8Array): string[] | undefined {
  return IndexNames.read(data)?.paths();
}
