import { chmodSync, mkdirSync, realpathSync, statSync } from 'node:fs';
import { homedir, tmpdir, userInfo } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';

/** Unix domain socket paths must fit in sockaddr_un (108 bytes on Linux, NUL included). */
const MAX_SOCKET_PATH = 107;

/** Where a project's files live: its databases under `.agentfs/`, its settings under `.cairn/`, and its folder under `$CAIRN_HOME`. */
export interface ProjectLayout {
  root: string;
  agentfsDir: string;
  stablePath: string;
  binPath: string;
  receiptKeyPath: string;
  settingsDir: string;
  manifestPath: string;
  /** `.cairn/config.json`: project settings (the review inbox's reviewers and handlers). */
  configPath: string;
  /** `.cairn/threads/inbox/`: one thread per proposal waiting for a decision; processed ones move to `done/`. */
  inboxDir: string;
  inboxDoneDir: string;
  /** `.cairn/logs/inbox/`: the audit log, one `YYYYMMDD.md` per day. */
  auditDir: string;
  /** `$CAIRN_HOME` itself. */
  cairnHome: string;
  /** This project's folder under `$CAIRN_HOME/projects/`. */
  home: string;
  previewsDir: string;
  workspacesDir: string;
  signalsDir: string;
  stateDir: string;
  socketPath: string;
  pidPath: string;
  logPath: string;
  overlayPath(agentId: string): string;
}

/** `$CAIRN_HOME`, or `~/.cairn`. */
export function cairnHomeDir(env: NodeJS.ProcessEnv = process.env): string {
  const configured = env.CAIRN_HOME;
  return configured !== undefined && configured !== '' ? resolve(configured) : join(homedir(), '.cairn');
}

/**
 * The layout of a project. Agent ids are unique within a project only, so everything under `$CAIRN_HOME`
 * is kept per project, in a folder named after the project and a hash of its real path (symbolic links
 * resolved), so a project reached through a link has one home, one socket and one daemon.
 */
export function projectLayout(root: string, cairnHome = cairnHomeDir()): ProjectLayout {
  const absolute = resolve(root);
  const agentfsDir = join(absolute, '.agentfs');
  const settingsDir = join(absolute, '.cairn');
  const real = realPathOf(absolute);
  // SHA-256 in JavaScript: every command computes this, and most would otherwise load node:crypto for it alone
  const key = bytesToHex(sha256(utf8ToBytes(real))).slice(0, 12);
  const name = (basename(real).replace(/[^A-Za-z0-9._-]/g, '_') || 'root').slice(0, 40);
  const home = join(cairnHome, 'projects', `${name}-${key}`);
  let socketPath = join(home, 'cairn.sock');
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) socketPath = join(cairnHome, 's', `${key}.sock`);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) socketPath = join(tmpdir(), `cairn-${userInfo().uid}`, `${key}.sock`);
  return {
    root: absolute,
    agentfsDir,
    stablePath: join(agentfsDir, 'stable.db'),
    binPath: join(agentfsDir, 'bin.db'),
    receiptKeyPath: join(agentfsDir, 'receipt.key'),
    settingsDir,
    manifestPath: join(settingsDir, 'manifest.air.json'),
    configPath: join(settingsDir, 'config.json'),
    inboxDir: join(settingsDir, 'threads', 'inbox'),
    inboxDoneDir: join(settingsDir, 'threads', 'inbox', 'done'),
    auditDir: join(settingsDir, 'logs', 'inbox'),
    cairnHome,
    home,
    previewsDir: join(home, 'previews'),
    workspacesDir: join(home, 'workspaces'),
    signalsDir: join(home, 'signals'),
    stateDir: join(home, 'state'),
    socketPath,
    pidPath: join(home, 'daemon.pid'),
    logPath: join(home, 'daemon.log'),
    overlayPath: (agentId) => join(agentfsDir, `agent-${agentId}.db`),
  };
}

/** The path with every symbolic link resolved; the path itself when it does not exist (yet). */
function realPathOf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Makes a folder only this user can enter (0700), with the folders above it, and narrows one of this user's
 * that is wider: a daemon's socket, pid file and log live there.
 */
export function ensurePrivateDir(path: string): void {
  mkdirSync(path, { recursive: true, mode: 0o700 });
  const stats = statSync(path);
  const mine = typeof process.getuid !== 'function' || stats.uid === process.getuid();
  if (mine && (stats.mode & 0o077) !== 0) chmodSync(path, 0o700);
}
