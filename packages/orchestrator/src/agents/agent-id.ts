import { randomBytes } from 'node:crypto';

/**
 * A short, typeable id: four hex digits (`a7f3`), one digit longer whenever sixteen tries in a row collide,
 * and never all digits (so it cannot be read as a number).
 */
export function newAgentId(taken: (id: string) => boolean): string {
  for (let length = 4; length <= 16; length++) {
    for (let attempt = 0; attempt < 16; attempt++) {
      const id = randomBytes(8).toString('hex').slice(0, length);
      if (/^\d+$/.test(id) || taken(id)) continue;
      return id;
    }
  }
  throw new Error('could not find a free agent id');
}
