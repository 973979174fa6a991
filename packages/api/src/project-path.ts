import { normalProjectPath } from '@cairn/air/project-path';
import { CairnError } from './errors.js';

/**
 * A project-relative path as every part of Cairn writes it (`a/./b//c/` → `a/b/c`), by the kernel's own rule
 * (`normalProjectPath` of `@cairn/air`), so the tools and the grants never disagree: an absolute path, a `..`
 * segment, a NUL or a backslash is refused with `CAIRN_INVALID_PATH`.
 */
export function projectPath(raw: unknown): string {
  const path = normalProjectPath(raw);
  if (path === undefined)
    throw new CairnError('CAIRN_INVALID_PATH', `${JSON.stringify(raw)} is not a path inside the project`, {
      hint: 'give paths relative to the project root, without ..',
    });
  return path;
}
