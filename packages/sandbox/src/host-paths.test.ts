import { describe, expect, it } from 'vitest';
import { scrubHostPaths } from './host-paths.js';

describe('host paths are scrubbed from messages, project paths are not', () => {
  it.each([
    ['ENOENT: no such file, open /home/me/app/data.txt', 'ENOENT: no such file, open [host]'],
    ['at run (file:///srv/cairn/dist/child/js-engine.js:10:5)', 'at run ([host])'],
    ['"/etc/passwd" is not allowed', '"[host]" is not allowed'],
  ])('%s', (message, expected) => {
    expect(scrubHostPaths(message)).toBe(expected);
  });

  it.each([
    '".github/workflows/ci.yml" is excluded from writing',
    'cannot read src/util/a.ts',
    'path "../outside.txt" climbs out',
    'see ~/notes/today.md',
  ])('keeps %s', (message) => {
    expect(scrubHostPaths(message)).toBe(message);
  });
});
