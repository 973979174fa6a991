import { type AgentFS, isAgentFSError, Overlay } from '@cairn/agentfs';
import { CairnError, isCairnError } from '@cairn/api';

/**
 * Opens an agent's overlay and runs `fn` on it, closing it after. A database that cannot be read as an
 * overlay (not SQLite, damaged, another application's) is the error a person can act on: the proposal is
 * damaged, and rejecting it discards it.
 */
export function withAgentOverlay<T>(path: string, stable: AgentFS, agentId: string, fn: (overlay: Overlay) => T): T {
  let overlay: Overlay;
  try {
    overlay = Overlay.open(path, stable);
  } catch (error) {
    throw damagedProposal(agentId, error) ?? error;
  }
  try {
    return fn(overlay);
  } catch (error) {
    throw (isSqliteDamage(error) && !overlayIsSound(overlay) ? damagedProposal(agentId, error) : undefined) ?? error;
  } finally {
    overlay.close();
  }
}

function isSqliteDamage(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB');
}

/** True when the overlay's own database passes SQLite's check (so a damage error came from elsewhere). */
function overlayIsSound(overlay: Overlay): boolean {
  try {
    return (overlay.upper.db.pragma('quick_check', { simple: true }) as string) === 'ok';
  } catch {
    return false;
  }
}

/** The error for a proposal whose database is damaged, or undefined when `error` is something else. */
export function damagedProposal(agentId: string, error: unknown): CairnError | undefined {
  if (isCairnError(error)) return undefined;
  const code = (error as { code?: unknown }).code;
  const damaged =
    isAgentFSError(error, 'ECORRUPT') ||
    (isAgentFSError(error, 'EINVAL') && (error as Error).message.includes('database')) ||
    (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB'));
  if (!damaged) return undefined;
  const detail = (error as Error).message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/s, '');
  return new CairnError('CAIRN_CORRUPT', `proposal ${agentId} is damaged (${detail})`, {
    hint: `\`cairn reject ${agentId}\` discards it`,
    cause: error,
  });
}
