import { describe, expect, it } from 'vitest';
import { exitMessage, exitStatusOf, rewriteExits } from './python-exit.js';

describe('rewriteExits', () => {
  it('turns SystemExit( and sys.exit( calls into calls the host answers, keeping every offset', () => {
    const code = 'if x:\n    raise SystemExit(3)\nsys.exit (0)\nraise SystemExit\n';
    const rewritten = rewriteExits(code);
    expect(rewritten).toBe('if x:\n    raise _cairnexit(3)\n_cairnsx (0)\nraise SystemExit\n');
    expect(rewritten.length).toBe(code.length);
  });

  it('leaves strings, comments and attributes alone', () => {
    const code = [
      `s = "SystemExit(1)" + 'sys.exit(2)'`,
      `# raise SystemExit(3)`,
      `t = """`,
      `SystemExit(4)"""`,
      `u = rb'SystemExit(5)' + f"{x}SystemExit(6)"`,
      `v = a.SystemExit(7) + other.sys.exit(8)`,
      `w = 'it\\'s SystemExit(9)'`,
    ].join('\n');
    expect(rewriteExits(code)).toBe(code);
  });
});

describe('exit codes', () => {
  it.each([
    [[], { status: 0 }],
    [[null], { status: 0 }],
    [[0], { status: 0 }],
    [[3], { status: 3 }],
    [[true], { status: 1 }],
    [[false], { status: 0 }],
    [['bye'], { status: 1, text: 'bye' }],
    [['3'], { status: 1, text: '3' }],
    [[''], { status: 1, text: '' }],
    [[1, 2], { status: 1, text: '[1,2]' }],
  ] as const)('exit%j ends with %j', (args, expected) => {
    expect(exitStatusOf(exitMessage(args))).toEqual(expected);
  });
});
