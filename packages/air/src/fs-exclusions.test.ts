import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fsExclusionOf, fsPathExcluded } from './fs-exclusions.js';

const DEFAULTS = ['.git/', '.agentfs/', '.env*', '.github/workflows/', 'Jenkinsfile', '**/secrets/*.key'];

describe('fs exclusions', () => {
  it.each([
    ['.git/HEAD', '.git/'],
    ['.git', '.git/'],
    ['sub/.git/config', '.git/'],
    ['.env', '.env*'],
    ['app/.env.local', '.env*'],
    ['.envrc', '.env*'],
    ['.github/workflows/ci.yml', '.github/workflows/'],
    ['Jenkinsfile', 'Jenkinsfile'],
    ['a/b/secrets/prod.key', '**/secrets/*.key'],
    ['secrets/prod.key', '**/secrets/*.key'],
  ])('excludes %s by %s', (path, pattern) => {
    expect(fsExclusionOf(path, DEFAULTS)).toBe(pattern);
  });

  it.each(['src/env.ts', '.github/dependabot.yml', 'docs/git/guide.md', 'a/secrets/prod.txt', 'src/environment.ts', ''])(
    'leaves %s alone',
    (path) => {
      expect(fsPathExcluded(path, DEFAULTS)).toBe(false);
    },
  );

  it('anchors patterns with a slash at the root, and matches ? within a segment', () => {
    expect(fsPathExcluded('x/.github/workflows/a.yml', ['.github/workflows/'])).toBe(false);
    expect(fsPathExcluded('a1/b', ['a?'])).toBe(true);
    expect(fsPathExcluded('a/1', ['a?1'])).toBe(false);
  });

  it('treats every other character literally', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z.+()$^[\]{}|\\-]{1,8}$/), (name) => {
        expect(fsPathExcluded(`dir/n${name}`, [`n${name}`])).toBe(true);
        expect(fsPathExcluded(`dir/n${name}x`, [`n${name}`])).toBe(false);
      }),
    );
  });
});

describe('fs exclusions on case-insensitive and normalising file systems', () => {
  it.each([
    ['.GIT/config', '.git/'],
    ['.Git/HEAD', '.git/'],
    ['.ENV', '.env*'],
    ['app/.Env.Local', '.env*'],
    ['.AGENTFS/stable.db', '.agentfs/'],
    ['.GitHub/Workflows/ci.yml', '.github/workflows/'],
    ['JENKINSFILE', 'Jenkinsfile'],
    ['.g\u200cit/config', '.git/'],
    ['.git./config', '.git/'],
    ['.git /config', '.git/'],
    ['\ufeff.env', '.env*'],
  ])('excludes %s by %s', (path, pattern) => {
    expect(fsExclusionOf(path, DEFAULTS)).toBe(pattern);
  });

  it('still leaves names that only look alike alone', () => {
    expect(fsPathExcluded('.gitx/config', DEFAULTS)).toBe(false);
    expect(fsPathExcluded('git/config', DEFAULTS)).toBe(false);
    expect(fsPathExcluded('src/.environment.ts.bak', ['.env'])).toBe(false);
  });
});
