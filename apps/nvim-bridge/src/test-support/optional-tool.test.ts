import { describe, expect, it } from 'vitest';
import { isRequired, lookUpTool, MissingToolError, type OptionalTool } from './optional-tool.js';

const absent: OptionalTool<string> = {
  name: 'frobnicator',
  howToGet: 'apt-get install frobnicator',
  requiredBy: 'CAIRN_REQUIRE_FROB',
  find: () => undefined,
};

describe('a tool some tests need', () => {
  it('is handed to the tests when found', () => {
    expect(lookUpTool({ ...absent, find: () => '/usr/bin/frob' }, {})).toEqual({ name: 'frobnicator', found: true, tool: '/usr/bin/frob' });
  });

  it('when missing, is named with how to get it, in one line, so its tests are skipped', () => {
    expect(lookUpTool(absent, { CI: 'true' })).toEqual({
      name: 'frobnicator',
      found: false,
      line: 'missing frobnicator: apt-get install frobnicator',
    });
  });

  it('when missing and required by its variable, fails with that same line', () => {
    const lookUp = () => lookUpTool(absent, { CAIRN_REQUIRE_FROB: '1' });
    expect(lookUp).toThrow(MissingToolError);
    expect(lookUp).toThrow(/^missing frobnicator: apt-get install frobnicator$/);
  });

  it('is required only when its variable is set to something other than empty or 0', () => {
    expect(
      [undefined, '', '0', '1', 'yes'].map((v) => isRequired('CAIRN_REQUIRE_FROB', v === undefined ? {} : { CAIRN_REQUIRE_FROB: v })),
    ).toEqual([false, false, false, true, true]);
  });
});
