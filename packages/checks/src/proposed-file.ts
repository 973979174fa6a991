/** A file of an agent's proposal as a check sees it: new content, or `null` where the agent deleted it. */
export interface ProposedFile {
  /** Project-relative, normalised (no `..`, no leading `/`). */
  path: string;
  content: Uint8Array | null;
}

/** Why a proposed path cannot be laid over the project, or undefined when it can. */
export function proposedPathProblem(path: string): string | undefined {
  if (path === '' || path.startsWith('/') || path.includes('\\')) return `${JSON.stringify(path)} is not a project-relative path`;
  if (/[\u0000-\u001f]/.test(path)) return `${JSON.stringify(path)} holds a control character`;
  if (path.split('/').some((part) => part === '' || part === '.' || part === '..')) return `${JSON.stringify(path)} is not normalised`;
  return undefined;
}
