import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { baseName, isWithin, normalizePath, parentPath } from './path.js';
import { codeOf } from './test-support/error-code.js';

describe('path normalisation', () => {
  it.each([
    ['a/b', '/a/b'],
    ['/a/b/', '/a/b'],
    ['./a//b/.', '/a/b'],
    ['a/../b', '/b'],
    ['/', '/'],
    ['.', '/'],
    ['a/b/../../c', '/c'],
  ])('%s normalises to %s', (input, expected) => {
    expect(normalizePath(input)).toBe(expected);
  });

  it.each([[''], ['..'], ['a/../..'], ['/a/\0'], ['../x']])('%j is EINVAL', (input) => {
    expect(codeOf(() => normalizePath(input))).toBe('EINVAL');
  });

  it('is idempotent and never leaves the root', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('a', 'b', '.', '..', '', 'c d'), { maxLength: 8 }), (parts) => {
        const input = parts.join('/') || '.';
        let normalized: string;
        try {
          normalized = normalizePath(input);
        } catch {
          return;
        }
        expect(normalizePath(normalized)).toBe(normalized);
        expect(normalized.startsWith('/')).toBe(true);
        expect(normalized.split('/').includes('..')).toBe(false);
      }),
    );
  });

  it('parent, base name and containment', () => {
    expect([parentPath('/a/b'), parentPath('/a'), parentPath('/')]).toEqual(['/a', '/', '/']);
    expect(baseName('/a/b.txt')).toBe('b.txt');
    expect([isWithin('/a/b', '/a'), isWithin('/ab', '/a'), isWithin('/a', '/a'), isWithin('/x', '/')]).toEqual([true, false, true, true]);
  });
});
