/** How far a cut may move to fall between two lines rather than inside one. */
const LINE_SEARCH_BYTES = 1024;

/**
 * A check's output as it arrives, kept within `cap` bytes. Output that fits is kept whole. Longer output keeps
 * its beginning (half the cap: the first failures) and its end (the other half: where test runners print their
 * summary), each cut at a line break when one is near, with a line saying how much was left out between them.
 * Memory stays within the cap however the output comes (the end is a ring).
 */
export class CappedOutput {
  private readonly headCap: number;
  private readonly tailCap: number;
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  /** The latest bytes after the head, as a ring once more came than it holds. */
  private ring: Buffer | undefined;
  private ringAt = 0;
  private ringFull = false;
  /** Every byte the command printed, kept or not. */
  total = 0;

  constructor(private readonly cap: number) {
    this.headCap = Math.floor(cap / 2);
    this.tailCap = cap - this.headCap;
  }

  add(chunk: Buffer): void {
    this.total += chunk.length;
    let rest = chunk;
    const room = this.headCap - this.headBytes;
    if (room > 0) {
      const part = rest.subarray(0, room);
      this.head.push(Buffer.from(part));
      this.headBytes += part.length;
      rest = rest.subarray(part.length);
    }
    if (rest.length > 0) this.keepLatest(rest);
  }

  /** True when more was printed than kept. */
  get truncated(): boolean {
    return this.total > this.cap;
  }

  /** What is kept: the whole output, or its beginning, a line saying how much was cut, and its end. */
  bytes(): Buffer {
    const head = Buffer.concat(this.head, this.headBytes);
    const tail = this.latest();
    if (!this.truncated) return Buffer.concat([head, tail]);
    const headEnd = cutBefore(head);
    const tailStart = cutAfter(tail);
    const cut = this.total - headEnd - (tail.length - tailStart);
    const note = Buffer.from(
      `${headEnd > 0 && head[headEnd - 1] !== 0x0a ? '\n' : ''}[… ${cut} byte${cut === 1 ? '' : 's'} of output cut here …]\n`,
    );
    return Buffer.concat([head.subarray(0, headEnd), note, tail.subarray(tailStart)]);
  }

  private keepLatest(bytes: Buffer): void {
    const ring = (this.ring ??= Buffer.alloc(this.tailCap));
    if (bytes.length >= ring.length) {
      bytes.copy(ring, 0, bytes.length - ring.length);
      this.ringAt = 0;
      this.ringFull = true;
      return;
    }
    const first = Math.min(bytes.length, ring.length - this.ringAt);
    bytes.copy(ring, this.ringAt, 0, first);
    bytes.copy(ring, 0, first);
    const end = this.ringAt + bytes.length;
    if (end >= ring.length) this.ringFull = true;
    this.ringAt = end % ring.length;
  }

  /** The bytes after the head, oldest first. */
  private latest(): Buffer {
    if (this.ring === undefined) return Buffer.alloc(0);
    if (!this.ringFull) return this.ring.subarray(0, this.ringAt);
    return Buffer.concat([this.ring.subarray(this.ringAt), this.ring.subarray(0, this.ringAt)]);
  }
}

/** Where to end the kept beginning: after its last line break when one is near the end, never inside a character. */
function cutBefore(head: Buffer): number {
  const newline = head.lastIndexOf(0x0a);
  if (newline >= 0 && head.length - (newline + 1) <= LINE_SEARCH_BYTES) return newline + 1;
  // the last character's first byte: back over (at most three) UTF-8 continuation bytes, 10xxxxxx
  let lead = head.length - 1;
  while (lead > 0 && head.length - lead < 4 && (head[lead]! & 0xc0) === 0x80) lead--;
  if (lead < 0) return 0;
  const first = head[lead]!;
  const length = first >= 0xf0 ? 4 : first >= 0xe0 ? 3 : first >= 0xc0 ? 2 : 1;
  return lead + length > head.length ? lead : head.length;
}

/** Where to start the kept end: after its first line break when one is near the start, never inside a character. */
function cutAfter(tail: Buffer): number {
  const newline = tail.indexOf(0x0a);
  if (newline >= 0 && newline < Math.min(LINE_SEARCH_BYTES, tail.length - 1)) return newline + 1;
  let start = 0;
  while (start < tail.length && start < 3 && (tail[start]! & 0xc0) === 0x80) start++;
  return start;
}
