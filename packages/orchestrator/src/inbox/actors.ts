import { userInfo } from 'node:os';
import { type Actor, parseActor } from '@cairn/triage';

/**
 * The person running Cairn, as an actor of the review protocol: `CAIRN_USER`, else the login name, made
 * to fit the actor syntax (letters, digits, `.`, `_`, `-`). This is who `cairn accept` and `reject` decide as,
 * and who owns the agents this process spawns.
 */
export function currentPerson(env: NodeJS.ProcessEnv = process.env): Actor {
  let name = env.CAIRN_USER ?? '';
  if (name.trim() === '') {
    try {
      name = userInfo().username;
    } catch {
      name = env.USER ?? 'person';
    }
  }
  return toActor(name, 'person');
}

/** A name forced into the actor syntax, or `fallback` when nothing of it fits. */
export function toActor(name: string, fallback: string): Actor {
  const cleaned = name
    .trim()
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 100);
  const parsed = parseActor(cleaned);
  return parsed.ok ? parsed.value : (fallback as Actor);
}
