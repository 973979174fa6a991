import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { CairnError } from '@cairn/api';
import { parsePublicKey } from './signing-key.js';

/**
 * The workers a coordinator trusts: the keys listed under `workers` in `.cairn/config.json` (name → public key,
 * as `cairn worker enroll` prints it), less those marked untrusted after a result failed verification, until a
 * person clears them (`cairn worker trust NAME`).
 */
export class WorkerRoster {
  /** Keys already parsed, by their text (checking a point on the curve is not free). */
  private readonly parsed = new Map<string, Uint8Array>();

  constructor(
    private readonly configPath: string,
    private readonly untrustedPath: string,
  ) {}

  /** The enrolled key of `name`, read afresh (so a key added while the daemon runs counts). */
  keyOf(name: string): Uint8Array | undefined {
    const text = this.listed()[name];
    if (text === undefined) return undefined;
    const known = this.parsed.get(text);
    if (known !== undefined) return known;
    const parsed = parsePublicKey(text);
    if (!parsed.ok)
      throw new CairnError('CAIRN_CONFIG', `.cairn/config.json: workers.${name}: ${parsed.reason}`, {
        hint: 'use the key `cairn worker enroll` printed on that worker',
      });
    this.parsed.set(text, parsed.key);
    return parsed.key;
  }

  /** Every listed key parsed: the first entry that is not a worker's public key is `CAIRN_CONFIG`. */
  check(): void {
    for (const name of Object.keys(this.listed())) this.keyOf(name);
  }

  /** Why `name` is untrusted, if it is. */
  untrusted(name: string): string | undefined {
    return this.marks()[name];
  }

  /** Marks `name` untrusted with the reason, until a person clears it. */
  distrust(name: string, reason: string): void {
    this.write({ ...this.marks(), [name]: reason });
  }

  /** Clears the mark of `name`; false when it had none. */
  trust(name: string): boolean {
    const marks = this.marks();
    if (marks[name] === undefined) return false;
    delete marks[name];
    this.write(marks);
    return true;
  }

  /** Untrusted workers and why. */
  marks(): Record<string, string> {
    if (!existsSync(this.untrustedPath)) return {};
    return JSON.parse(readFileSync(this.untrustedPath, 'utf8')) as Record<string, string>;
  }

  private listed(): Record<string, string> {
    if (!existsSync(this.configPath)) return {};
    let config: unknown;
    try {
      config = JSON.parse(readFileSync(this.configPath, 'utf8'));
    } catch (error) {
      throw new CairnError('CAIRN_CONFIG', `.cairn/config.json is not JSON: ${(error as Error).message}`);
    }
    const workers = (config as { workers?: unknown }).workers;
    if (workers === undefined) return {};
    if (
      typeof workers !== 'object' ||
      workers === null ||
      Array.isArray(workers) ||
      Object.values(workers).some((key) => typeof key !== 'string')
    )
      throw new CairnError('CAIRN_CONFIG', '.cairn/config.json: workers must map each worker name to its public key', {
        hint: '"workers": { "gpu-box": "ed25519:…" }, keys as `cairn worker enroll` prints them',
      });
    return workers as Record<string, string>;
  }

  private write(marks: Record<string, string>): void {
    mkdirSync(dirname(this.untrustedPath), { recursive: true, mode: 0o700 });
    const temp = `${this.untrustedPath}.${process.pid}.tmp`;
    writeFileSync(temp, JSON.stringify(marks, null, 2), { mode: 0o600 });
    renameSync(temp, this.untrustedPath);
  }
}
