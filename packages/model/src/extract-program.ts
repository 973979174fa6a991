/** What an answer held: a program, or why it does not hold a usable one. */
export type Extraction = { ok: true; code: string } | { ok: false; problem: string };

const LANGS = {
  js: ['js', 'javascript', 'mjs', 'jsx', 'ts', 'typescript', 'node'],
  py: ['py', 'python', 'python3'],
};

interface Block {
  info: string;
  code: string;
  closed: boolean;
}

/**
 * Takes the program out of a model's answer: the fenced block in the asked language (the longest, when
 * there are several), else a bare fenced block, else — when there is no fence at all — the whole answer
 * if it reads as code. An unterminated fence is a truncated answer, and said to be.
 */
export function extractProgram(answer: string, lang: 'js' | 'py'): Extraction {
  const text = answer.replace(/\r\n?/g, '\n');
  if (text.trim() === '') return { ok: false, problem: 'the answer was empty' };
  const blocks = fencedBlocks(text);
  if (blocks.length === 0) {
    return looksLikeCode(text, lang)
      ? { ok: true, code: text.trim() + '\n' }
      : { ok: false, problem: 'the answer held no program in a fenced code block' };
  }
  const wanted = blocks.filter((b) => LANGS[lang].includes(b.info));
  const bare = blocks.filter((b) => b.info === '');
  const other = blocks.filter((b) => b.info !== '' && !LANGS[lang].includes(b.info));
  const pool = wanted.length > 0 ? wanted : bare.length > 0 ? bare : [];
  if (pool.length === 0)
    return {
      ok: false,
      problem: `the answer held code in ${other.map((b) => b.info).join(', ')}, not ${lang === 'js' ? 'JavaScript' : 'Python'}`,
    };
  const best = [...pool].sort((a, b) => Number(b.closed) - Number(a.closed) || b.code.length - a.code.length)[0]!;
  if (!best.closed) return { ok: false, problem: 'the answer was cut off inside its code block (it hit the length limit)' };
  if (best.code.trim() === '') return { ok: false, problem: 'the code block was empty' };
  return { ok: true, code: best.code.replace(/\s+$/, '') + '\n' };
}

function fencedBlocks(text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  let open: { fence: string; info: string; lines: string[] } | undefined;
  for (const line of lines) {
    if (open === undefined) {
      const start = /^\s*(`{3,}|~{3,})\s*([\w+#.-]*)[^\n]*$/.exec(line);
      if (start !== null) open = { fence: start[1]!, info: start[2]!.toLowerCase(), lines: [] };
      continue;
    }
    const trimmed = line.trim();
    if (trimmed.startsWith(open.fence[0]!.repeat(open.fence.length)) && trimmed.replace(/[`~]/g, '') === '') {
      blocks.push({ info: open.info, code: open.lines.join('\n'), closed: true });
      open = undefined;
    } else open.lines.push(line);
  }
  if (open !== undefined) blocks.push({ info: open.info, code: open.lines.join('\n'), closed: false });
  return blocks;
}

/** A rough test that an unfenced answer is code rather than prose: tool calls, and no sentences of words. */
function looksLikeCode(text: string, lang: 'js' | 'py'): boolean {
  const callsTool = /\b(read_file|write_file|submit_result|search_files|list_dir|search_content)\s*\(/.test(text);
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const prose = lines.filter((l) => /^[A-Z][a-z]+(\s+[a-z,']+){4,}[.:!]?\s*$/.test(l.trim())).length;
  const codeMarks = lang === 'js' ? /[;{}=]|\bawait\b|\bconst\b|\blet\b/ : /[=:()]|\bdef\b|\bfor\b|\bif\b/;
  const codeLines = lines.filter((l) => codeMarks.test(l)).length;
  return callsTool && codeLines >= prose * 2 && codeLines > 0;
}
