/** A check's output as it arrives: the first `cap` bytes kept, the rest counted and dropped. */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private kept = 0;
  /** Every byte the command printed, kept or not. */
  total = 0;

  constructor(private readonly cap: number) {}

  add(chunk: Buffer): void {
    this.total += chunk.length;
    const room = this.cap - this.kept;
    if (room <= 0) return;
    const part = chunk.length <= room ? chunk : chunk.subarray(0, room);
    this.chunks.push(Buffer.from(part));
    this.kept += part.length;
  }

  get truncated(): boolean {
    return this.total > this.kept;
  }

  bytes(): Buffer {
    return Buffer.concat(this.chunks, this.kept);
  }
}
