import { isAgentFSError } from '@cairn/agentfs';
import { CairnError, isCairnError } from '@cairn/api';
import { AgentStore } from './agent-store.js';

/** The hint every command gives when bin.db cannot be used. */
export const REPAIR_HINT = '`cairn repair` keeps the damaged file and rebuilds the agent records from the agent databases';

/** True when an error says a database file is damaged or is not Cairn's (not SQLite, malformed, another application's). */
export function isDatabaseDamage(error: unknown): boolean {
  if (isCairnError(error)) return error.code === 'CAIRN_CORRUPT';
  if (isAgentFSError(error, 'ECORRUPT')) return true;
  if (isAgentFSError(error, 'EINVAL')) return /database|fs_config/.test((error as Error).message);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

/** Opens the agent records in bin.db; a damaged bin.db is one line naming it, with the way out (`cairn repair`). */
export function openAgentStore(binPath: string, clock: () => number): AgentStore {
  try {
    return new AgentStore(binPath, clock);
  } catch (error) {
    if (!isDatabaseDamage(error)) throw error;
    const detail = (error as Error).message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/s, '');
    throw new CairnError('CAIRN_CORRUPT', `${binPath} cannot be used: ${detail}`, { hint: REPAIR_HINT, cause: error });
  }
}
