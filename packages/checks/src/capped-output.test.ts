import { describe, expect, it } from 'vitest';
import { CappedOutput } from './capped-output.js';

function capture(cap: number, chunks: readonly (string | Buffer)[]): { output: string; bytes: Buffer; truncated: boolean; total: number } {
  const capped = new CappedOutput(cap);
  for (const chunk of chunks) capped.add(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk));
  const bytes = capped.bytes();
  return { output: bytes.toString('utf8'), bytes, truncated: capped.truncated, total: capped.total };
}

describe('CappedOutput', () => {
  it('keeps output that fits whole, in the order it came', () => {
    expect(capture(1024, ['one\n', 'two\n', 'three'])).toMatchObject({ output: 'one\ntwo\nthree', truncated: false, total: 13 });
    const exact = 'x'.repeat(1024);
    expect(capture(1024, [exact.slice(0, 700), exact.slice(700)])).toMatchObject({ output: exact, truncated: false });
  });

  it('keeps the beginning and the end of longer output, cut between lines, and says how much was cut', () => {
    const lines = Array.from({ length: 300 }, (_, i) => `line ${i + 1}\n`);
    const printed = `${lines.join('')}FAILED: 2 of 300\n`;
    const { output, truncated, total } = capture(1024, lines.concat('FAILED: 2 of 300\n'));
    expect(truncated).toBe(true);
    expect(total).toBe(printed.length);
    const [head, tail] = output.split(/\[… \d+ bytes of output cut here …\]\n/);
    const cut = Number(/\[… (\d+) bytes/.exec(output)![1]);
    expect(head!.startsWith('line 1\nline 2\n')).toBe(true);
    expect(head!.endsWith('\n')).toBe(true);
    expect(tail!.startsWith('line ')).toBe(true);
    expect(tail!.endsWith('FAILED: 2 of 300\n')).toBe(true);
    expect(printed.startsWith(head!) && printed.endsWith(tail!)).toBe(true);
    expect(head!.length + cut + tail!.length).toBe(printed.length);
    expect(head!.length + tail!.length).toBeLessThanOrEqual(1024);
  });

  it('never keeps part of a character, where no line break is near', () => {
    const text = 'é'.repeat(3000); // two bytes each, no line break
    const { output } = capture(1001, [Buffer.from(text).subarray(0, 1001), Buffer.from(text).subarray(1001)]);
    expect(output).not.toContain('\uFFFD');
    const [head, tail] = output.split(/\n\[… \d+ bytes of output cut here …\]\n/);
    expect(head).toMatch(/^é+$/);
    expect(tail).toMatch(/^é+$/);
    const cut = Number(/\[… (\d+) bytes/.exec(output)![1]);
    expect(Buffer.byteLength(head!) + cut + Buffer.byteLength(tail!)).toBe(6000);
  });

  it('stays within its cap however the output comes: a byte at a time, or one chunk larger than the cap', () => {
    const trickle = new CappedOutput(2048);
    for (let i = 0; i < 200_000; i++) trickle.add(Buffer.from(i % 80 === 79 ? '\n' : String(i % 10)));
    const kept = trickle.bytes().toString();
    expect(trickle.total).toBe(200_000);
    expect(kept.replace(/\[… \d+ bytes of output cut here …\]\n/, '').length).toBeLessThanOrEqual(2048);
    expect(kept.endsWith('\n')).toBe(true);

    const { output, total } = capture(1024, ['start\n', `${'y'.repeat(10_000)}\nend\n`]);
    expect(total).toBe(10_011);
    expect(output.startsWith('start\n')).toBe(true);
    expect(output.endsWith('\nend\n')).toBe(true);
  });
});
