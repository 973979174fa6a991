import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { threadArb } from './test-support/arbitraries.js';
import { formatThread, parseThread, type Thread } from './thread.js';

const SEED_THREAD = `# pi/proposal

**From:** pi
**Branch:** sigma/proposal
**Received:** 2026-02-05T14:00Z

---

[Content: commit messages, changed files, thread content]

---

## Triage

decision: do:merge
actor: sigma
timestamp: 2026-02-05T15:00Z
`;

const EXPECTED = {
  title: 'pi/proposal',
  from: 'pi',
  branch: 'sigma/proposal',
  received: '2026-02-05T14:00Z',
  body: '[Content: commit messages, changed files, thread content]',
  triage: { decision: { type: 'do', action: { type: 'merge' } }, actor: 'sigma', timestamp: '2026-02-05T15:00Z' },
};

describe('threads', () => {
  it('reads the thread of the protocol, and formats it back byte for byte', () => {
    const parsed = parseThread(SEED_THREAD);
    expect(parsed).toEqual({ ok: true, value: EXPECTED });
    expect(formatThread(EXPECTED as Thread)).toBe(SEED_THREAD);
  });

  it('reads an incoming thread without a triage section', () => {
    const incoming = SEED_THREAD.slice(0, SEED_THREAD.indexOf('\n---\n\n## Triage'));
    const parsed = parseThread(incoming);
    expect(parsed.ok && parsed.value.triage).toBeUndefined();
    expect(parsed.ok && parsed.value.body).toBe(EXPECTED.body);
  });

  it('tolerates CRLF, stray whitespace, field order, bullets and **Name**: headers', () => {
    const messy = [
      '',
      '   #   pi/proposal   ',
      '**Received:**   2026-02-05T14:00Z  ',
      '  **From**: pi',
      '**Branch:**sigma/proposal',
      ' --- ',
      '',
      '[Content: commit messages, changed files, thread content]',
      '',
      '---   ',
      '##   triage',
      '- decision :  do:merge  ',
      '* actor: sigma',
      'timestamp:2026-02-05T15:00Z',
      '',
    ].join('\r\n');
    expect(parseThread(messy)).toEqual({ ok: true, value: EXPECTED });
  });

  it('reads triage fields written in bold, a "## Triage:" heading, and lower-case t and z in times', () => {
    const text = SEED_THREAD.replace('## Triage', '## Triage:')
      .replace('decision: do:merge', '**Decision:** do:merge')
      .replace('actor: sigma', '- **actor**: sigma')
      .replace('timestamp: 2026-02-05T15:00Z', 'timestamp: 2026-02-05t15:00z');
    const parsed = parseThread(text);
    expect(parsed.ok && parsed.value.triage).toEqual({
      decision: { type: 'do', action: { type: 'merge' } },
      actor: 'sigma',
      timestamp: '2026-02-05t15:00z',
    });
  });

  it('reads header fields written without bold, a "### Triage" heading, and an untriaged thread closed by "---"', () => {
    const plain = SEED_THREAD.replace('**From:** pi', 'From: pi')
      .replace('**Branch:** sigma/proposal', '- Branch: sigma/proposal')
      .replace('## Triage', '### Triage');
    expect(parseThread(plain)).toEqual({ ok: true, value: EXPECTED });
    const awaiting = SEED_THREAD.slice(0, SEED_THREAD.indexOf('## Triage'));
    expect(awaiting.trimEnd().endsWith('---')).toBe(true);
    const parsed = parseThread(awaiting);
    expect(parsed.ok && parsed.value.body).toBe(EXPECTED.body);
    expect(parsed.ok && parsed.value.triage).toBeUndefined();
  });

  it('an untriaged body that ends with a rule keeps it through format and parse', () => {
    const { triage: _dropped, ...untriaged } = EXPECTED as Thread;
    const thread: Thread = { ...untriaged, body: 'notes\n\n---' };
    expect(parseThread(formatThread(thread))).toEqual({ ok: true, value: thread });
  });

  it('keeps rules, headings and blank lines inside the body', () => {
    const thread: Thread = { ...(EXPECTED as Thread), body: 'first\n\n---\n\n# not a title\nlast' };
    expect(parseThread(formatThread(thread))).toEqual({ ok: true, value: thread });
  });

  it('round-trips every thread', () => {
    fc.assert(
      fc.property(threadArb, (thread) => {
        expect(parseThread(formatThread(thread))).toEqual({ ok: true, value: thread });
      }),
    );
  });

  it('never throws on any input', () => {
    fc.assert(fc.property(fc.string(), (text) => void parseThread(text)));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('# t', '**From:** pi', '---', '## Triage', 'decision: do:merge', 'x', '', '\r'), { maxLength: 12 }),
        (lines) => void parseThread(lines.join('\n')),
      ),
    );
  });

  it.each([
    ['no title', 'just text\n', [{ code: 'missing-title', message: 'a thread starts with a "# <title>" line', line: 1, column: 1 }]],
    ['a level-2 title', '## nope\n', [{ code: 'missing-title', message: 'a thread starts with a "# <title>" line', line: 1, column: 1 }]],
    [
      'no separator',
      '# t\n**From:** pi\n',
      [{ code: 'missing-separator-line', message: 'the header must end with a "---" line', line: 3, column: 1 }],
    ],
    [
      'missing and repeated fields, an unknown one, a stray line',
      '# t\n**From:** pi\n**From:** pj\n**Sender:** x\nhello\n---\n',
      [
        { code: 'duplicate-field', message: 'header field "From" appears twice (first on line 2)', line: 3, column: 1 },
        { code: 'unknown-field', message: 'unknown header field "Sender"; expected From, Branch and Received', line: 4, column: 1 },
        {
          code: 'invalid-line',
          message: 'expected a header field like "**From:** pi" or the "---" line, found "hello"',
          line: 5,
          column: 1,
        },
        { code: 'missing-field', message: 'the header has no "**Branch:**" field', line: 6, column: 1 },
        { code: 'missing-field', message: 'the header has no "**Received:**" field', line: 6, column: 1 },
      ],
    ],
    [
      'bad header values, located',
      '# t\n**From:** p i\n**Branch:** a..b\n**Received:** 2026-02-30T10:00Z\n---\n',
      [
        {
          code: 'invalid-actor',
          message: "actor 'p i' may hold only letters, digits, '.', '_' and '-', starting with a letter or digit",
          line: 2,
          column: 12,
        },
        { code: 'invalid-branch', message: "branch 'a..b' contains '..'", line: 3, column: 14 },
        {
          code: 'invalid-timestamp',
          message: "timestamp '2026-02-30T10:00Z' has no such day; expected a form like 2026-02-05T14:00Z",
          line: 4,
          column: 15,
        },
      ],
    ],
    [
      'two triage sections, the first with a malformed decision',
      '# t\n**From:** pi\n**Branch:** pi/x\n**Received:** 2026-02-05T14:00Z\n---\nbody\n---\n## Triage\ndecision: do:mrge\nactor: sigma\ntimestamp: 2026-02-05T15:00Z\n## Triage\ndecision: do:merge\n',
      [
        {
          code: 'duplicate-triage',
          message: 'a second "## Triage" section (the first is on line 8); a thread has at most one',
          line: 12,
          column: 1,
        },
        {
          code: 'unknown-action',
          message: "unknown action 'do:mrge'; expected do:merge, do:reply:<branch> or do:custom:<description>",
          line: 9,
          column: 14,
        },
      ],
    ],
    [
      'a triage section missing fields and holding a stray line',
      '# t\n**From:** pi\n**Branch:** pi/x\n**Received:** 2026-02-05T14:00Z\n---\n## Triage\ndecision: merge it\nlooks good to me\n',
      [
        {
          code: 'invalid-line',
          message: 'expected "decision:", "actor:" or "timestamp:" in the triage section, found "looks good to me"',
          line: 8,
          column: 1,
        },
        { code: 'missing-field', message: 'the triage section has no "actor:" line', line: 6, column: 1 },
        { code: 'missing-field', message: 'the triage section has no "timestamp:" line', line: 6, column: 1 },
      ],
    ],
  ])('refuses %s, saying where', (_name, text, expected) => {
    const result = parseThread(text);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      for (const diagnostic of expected) expect(result.error).toContainEqual(diagnostic);
      expect(result.error.length).toBeGreaterThanOrEqual(expected.length);
    }
  });

  it('a decision that is not in the vocabulary is refused at its column', () => {
    const text =
      '# t\n**From:** pi\n**Branch:** pi/x\n**Received:** 2026-02-05T14:00Z\n---\n## Triage\ndecision:   merge\nactor: s\ntimestamp: 2026-02-05T15:00Z\n';
    const result = parseThread(text);
    expect(result).toMatchObject({ ok: false, error: [{ code: 'unknown-decision', line: 7, column: 13 }] });
  });

  it('refuses to format what could not be read back', () => {
    const base = EXPECTED as Thread;
    expect(() => formatThread({ ...base, body: 'a\n## Triage\nb' })).toThrow(expect.objectContaining({ code: 'TRIAGE_INVALID_THREAD' }));
    expect(() => formatThread({ ...base, body: 'a\n#### triage\nb' })).toThrow(expect.objectContaining({ code: 'TRIAGE_INVALID_THREAD' }));
    expect(() => formatThread({ ...base, title: 'two\nlines' })).toThrow(expect.objectContaining({ code: 'TRIAGE_INVALID_THREAD' }));
  });
});
