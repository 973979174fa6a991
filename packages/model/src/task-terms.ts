/** What a task says about where to look: the paths and file names it names, and its words. */
export interface TaskTerms {
  /** Paths and bare file names the task names (`src/app.ts`, `greet.js`), as written, without `./`. */
  named: string[];
  /** Words worth finding in paths (lower case, at least 3 letters, common words left out). */
  words: string[];
  /** Identifiers worth finding in files (`getUserName`, `parse_config`), as written. */
  identifiers: string[];
}

const STOP = new Set(
  (
    'the and for with that this from into onto when then than them they their there what which while where will would ' +
    'should could have has had not but all any each every some more most other such only own same also just very can ' +
    'add adds added make makes use uses using used change changes changed update updates file files folder code project ' +
    'function functions method methods class classes new old fix fixes rename move delete remove write read keep let set get ' +
    'test tests instead please sure its it’s are was were been being does did doing done about after before over under'
  ).split(' '),
);

/** Characters that end a named path when they trail it (punctuation of the sentence around it). */
const TRAILING = /[.,;:!?)\]}'"`]+$/;
const LEADING = /^[([{'"`]+/;

/**
 * Reads a task for what it names: tokens that hold a `/` or end in a file extension are paths or file names;
 * the other words and identifiers are what a search of paths and contents looks for.
 */
export function readTaskTerms(task: string): TaskTerms {
  const named: string[] = [];
  const words = new Set<string>();
  const identifiers = new Set<string>();
  for (const raw of task.split(/\s+/)) {
    const token = raw.replace(LEADING, '').replace(TRAILING, '');
    if (token === '') continue;
    if (looksLikePath(token)) {
      const path = token.replace(/^\.\//, '').replace(/\/{2,}$/, '/');
      if (!named.includes(path)) named.push(path);
      for (const part of path.split(/[/.]/)) addWord(part, words);
      continue;
    }
    for (const part of token.split(/[^\p{L}\p{N}_$-]+/u)) {
      if (part.length < 3) continue;
      if (/[a-z][A-Z]|_|\$/.test(part) || /^[A-Z][a-z]+[A-Z]/.test(part)) identifiers.add(part);
      addWord(part, words);
    }
  }
  return { named, words: [...words], identifiers: [...identifiers] };
}

function looksLikePath(token: string): boolean {
  if (/^[a-z]+:\/\//i.test(token)) return false;
  if (token.includes('/') && /[\p{L}\p{N}]/u.test(token)) return true;
  return /^[\p{L}\p{N}_.-]+\.[A-Za-z][A-Za-z0-9]{0,7}$/u.test(token) && !/^\d+(\.\d+)+$/.test(token);
}

function addWord(part: string, words: Set<string>): void {
  const pieces = part.split(/[-_]|(?<=[a-z])(?=[A-Z])/);
  for (const piece of [part, ...(pieces.length > 1 ? pieces : [])]) {
    const word = piece.toLowerCase();
    if (word.length >= 3 && !STOP.has(word) && !/^\d+$/.test(word)) words.add(word);
  }
}
