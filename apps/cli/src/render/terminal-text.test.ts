import pc from 'picocolors';
import { describe, expect, it } from 'vitest';
import { forTerminal } from './terminal-text.js';

describe('text shown on a terminal', () => {
  it('shows the control characters an agent could hide a line with, instead of obeying them', () => {
    // a carriage return and a cursor move over a line of a diff, a concealing escape, a title and a bell
    expect(forTerminal('+rm -rf ~\r+# harmless')).toBe('+rm -rf ~^M+# harmless');
    expect(forTerminal('+evil()\x1b[1A\x1b[2K')).toBe('+evil()^[[1A^[[2K');
    expect(forTerminal('\x1b[8mhidden\x1b[0m')).toBe('^[[8mhidden\x1b[0m');
    expect(forTerminal('\x1b]0;title\x07\x1b]52;c;Y2xpcA==\x07')).toBe('^[]0;title^G^[]52;c;Y2xpcA==^G');
    expect(forTerminal('back\bspace, nul\0, del\x7f, csi\u009b')).toBe('back^Hspace, nul^@, del^?, csi<U+009B>');
  });

  it('shows the bidirectional controls that make code read in another order than it runs', () => {
    expect(forTerminal('if (admin) {\u202e } \u2066// check\u2069')).toBe('if (admin) {<U+202E> } <U+2066>// check<U+2069>');
  });

  it('keeps tabs, line breaks, text in any script, and the colours Cairn paints', () => {
    const colors = pc.createColors(true);
    const painted = [
      colors.bold('b'),
      colors.dim('d'),
      colors.red('r'),
      colors.green('g'),
      colors.yellow('y'),
      colors.cyan('c'),
      colors.magenta('m'),
    ].join('\t');
    expect(forTerminal(painted)).toBe(painted);
    expect(forTerminal('a\tb\nשלום 世界 é\n')).toBe('a\tb\nשלום 世界 é\n');
  });
});
