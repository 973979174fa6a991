import type { Project } from '@cairn/orchestrator';
import { ErrorCode, type ReadResourceResult, type Resource, type ResourceTemplate } from '@modelcontextprotocol/sdk/types.js';

/** What an environment shows as resources: its diff, and its journal (every call, its effect and receipt). */
const KINDS = {
  diff: { mimeType: 'text/x-diff', about: 'its changes so far, as a unified diff against the working tree' },
  journal: { mimeType: 'application/json', about: 'its journal: every call, the effect it made, its signed receipt' },
} as const;

type Kind = keyof typeof KINDS;

/** The resources of the environments this session opened. */
export function resourceList(ids: readonly string[]): Resource[] {
  return ids.flatMap((id) =>
    (Object.keys(KINDS) as Kind[]).map((kind) => ({
      uri: uriOf(id, kind),
      name: `${id} ${kind}`,
      description: `Environment ${id}: ${KINDS[kind].about}.`,
      mimeType: KINDS[kind].mimeType,
    })),
  );
}

/** The same for any environment of the project, by id. */
export function resourceTemplates(): ResourceTemplate[] {
  return (Object.keys(KINDS) as Kind[]).map((kind) => ({
    uriTemplate: `cairn://environment/{id}/${kind}`,
    name: `environment ${kind}`,
    description: `An environment's ${KINDS[kind].about}.`,
    mimeType: KINDS[kind].mimeType,
  }));
}

/** Reads `cairn://environment/<id>/diff` or `…/journal`. */
export async function readResource(project: Project, uri: string): Promise<ReadResourceResult> {
  const match = /^cairn:\/\/environment\/([^/]+)\/(diff|journal)$/.exec(uri);
  if (match === null)
    throw Object.assign(new Error(`unknown resource ${uri} (cairn://environment/<id>/diff or cairn://environment/<id>/journal)`), {
      code: ErrorCode.InvalidParams,
    });
  const [, id, kind] = match as unknown as [string, string, Kind];
  try {
    const text = kind === 'diff' ? await project.diff(id) : JSON.stringify(await project.journal(id), null, 2);
    return { contents: [{ uri, mimeType: KINDS[kind].mimeType, text }] };
  } catch (error) {
    throw Object.assign(new Error(`${uri}: ${(error as Error).message}`), { code: ErrorCode.InvalidParams });
  }
}

function uriOf(id: string, kind: Kind): string {
  return `cairn://environment/${id}/${kind}`;
}
