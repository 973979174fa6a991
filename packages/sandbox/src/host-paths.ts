/**
 * Absolute host file paths (`/home/me/app/node_modules/x.js:10:5`, `file:///…`) in a message, which a
 * program must not learn. A path inside a longer word is not one: `.github/workflows/ci.yml` and
 * `src/a.ts` are project paths and stay as they are.
 */
const HOST_PATH = /(?<![\w.@~-])(?:file:\/\/)?\/(?:[\w.@-]+\/)+[\w.@-]+(?::\d+)*/g;

/** Replaces host file paths in a message with `[host]`. */
export function scrubHostPaths(text: string): string {
  return text.replace(HOST_PATH, '[host]');
}
