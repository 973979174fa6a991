/** An error of the operating system or of SQLite, in words: what could not be done, where, and what to do. */
export interface SystemErrorText {
  code: 'CAIRN_IO' | 'CAIRN_CORRUPT';
  message: string;
  hint: string;
}

const ERRNO_WORDS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
  ENOTDIR: 'a file is in the way where a folder should be',
  EISDIR: 'it is a folder',
  ENOENT: 'no such file or folder',
  EEXIST: 'something is already there',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
  EIO: 'an input/output error',
  EBUSY: 'it is busy',
};

const SYSCALL_VERBS: Record<string, string> = {
  mkdir: 'create the folder',
  open: 'open',
  rename: 'replace',
  unlink: 'remove',
  rmdir: 'remove',
  rm: 'remove',
  scandir: 'list',
  opendir: 'list',
  write: 'write',
  copyfile: 'copy',
  symlink: 'link',
};

const SQLITE_WORDS: Array<[string, string]> = [
  ['SQLITE_READONLY', 'a Cairn database cannot be written (read-only)'],
  ['SQLITE_CANTOPEN', 'a Cairn database cannot be opened'],
  ['SQLITE_FULL', 'a Cairn database cannot grow: the disk is full'],
  ['SQLITE_IOERR', 'a Cairn database met an input/output error'],
  ['SQLITE_CORRUPT', 'a Cairn database is damaged'],
  ['SQLITE_NOTADB', 'a Cairn database is not a database'],
  ['SQLITE_BUSY', 'a Cairn database is busy'],
  ['SQLITE_PERM', 'a Cairn database cannot be written (permission denied)'],
];

/** Words for a Node errno error (`EACCES`, `ENOTDIR`, …), a SQLite error or an AgentFS one; undefined for anything else. */
export function describeSystemError(error: unknown): SystemErrorText | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; path?: unknown; syscall?: unknown; message?: unknown; name?: unknown };
  if (typeof e.code !== 'string') return undefined;
  if (e.name === 'AgentFSError' && typeof e.path === 'string' && e.path.endsWith('.db') && typeof e.message === 'string') {
    // "EINVAL: not a SQLite database, open '/p/.agentfs/bin.db'" → "…/bin.db cannot be opened: not a SQLite database"
    const detail = e.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/s, '');
    return {
      code: 'CAIRN_CORRUPT',
      message: `${e.path} cannot be ${e.syscall === 'open' ? 'opened' : 'used'}: ${detail}`,
      hint: e.path.endsWith('bin.db')
        ? '`cairn repair` keeps the damaged file and rebuilds the agent records from the agent databases'
        : 'it is one of the databases Cairn keeps under .agentfs/; restore it from a backup, or move it aside if you can lose what it holds',
    };
  }
  if (e.name === 'AgentFSError' && e.code === 'ENOSPC' && typeof e.message === 'string') {
    // "ENOSPC: importing 40 MB of files needs about 108 MB free beside /p/.agentfs, and its disk has 12 MB, import '/p/.agentfs'"
    const detail = e.message.replace(/^[A-Z]+: /, '').replace(/, \w+ '.*'$/s, '');
    return {
      code: 'CAIRN_IO',
      message: `not enough room on the disk: ${detail}`,
      hint: 'free some space (or leave large generated folders out with .gitignore), then run the command again; nothing was written',
    };
  }
  const words = ERRNO_WORDS[e.code];
  if (words !== undefined) {
    const where = typeof e.path === 'string' ? ` ${e.path}` : '';
    const verb = typeof e.syscall === 'string' ? (SYSCALL_VERBS[e.syscall] ?? 'use') : 'use';
    return { code: 'CAIRN_IO', message: `cannot ${verb}${where}: ${words}`, hint: hintFor(e.code) };
  }
  const sqlite = SQLITE_WORDS.find(([prefix]) => (e.code as string).startsWith(prefix));
  if (sqlite !== undefined) {
    const detail = typeof e.message === 'string' && e.message !== '' ? ` (${e.message})` : '';
    return {
      code: 'CAIRN_IO',
      message: `${sqlite[1]}${detail}`,
      hint: "check the permissions and free space of the project's .agentfs/ folder",
    };
  }
  return undefined;
}

function hintFor(code: string): string {
  if (code === 'EACCES' || code === 'EPERM') return 'check who owns it and its permissions';
  if (code === 'EROFS') return 'Cairn needs a writable project and CAIRN_HOME';
  if (code === 'ENOSPC' || code === 'EDQUOT') return 'free some space, then run the command again';
  if (code === 'ENOTDIR' || code === 'EEXIST') return 'move the file in the way aside, then run the command again';
  return 'run again with --debug to see where it failed';
}
