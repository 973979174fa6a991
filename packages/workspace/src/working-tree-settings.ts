import { configError, isConfigObject, readProjectConfig } from '@cairn/api';

/** The `workingTree` section of `.cairn/config.json`. */
export interface WorkingTreeSettings {
  /**
   * Wait for the disk (fsync) after each file an accept or undo writes, and after each folder it changed. Off by
   * default, as git does for the files it checks out: the write is atomic either way (a temp file renamed over
   * the target) and recorded in stable.db first, so a killed process is finished on the next command.
   */
  fsync: boolean;
}

const HINT = 'the working-tree settings are described in SPEC.md §6.5';

/** Reads the `workingTree` section (`{ "workingTree": { "fsync": true } }`); anything malformed is refused whole. */
export function loadWorkingTreeSettings(configPath: string): WorkingTreeSettings {
  const section = readProjectConfig(configPath, HINT)?.workingTree;
  if (section === undefined) return { fsync: false };
  if (!isConfigObject(section)) throw configError('"workingTree" must be an object', HINT);
  for (const key of Object.keys(section))
    if (key !== 'fsync') throw configError(`"workingTree.${key}" is not a setting (the one setting is "fsync")`, HINT);
  if (section.fsync !== undefined && typeof section.fsync !== 'boolean')
    throw configError('"workingTree.fsync" must be true or false', HINT);
  return { fsync: section.fsync === true };
}

/**
 * Whether writes to the working tree wait for the disk. A malformed file never stops a write that is owed (an
 * accept finished after a crash): it then waits for the disk, the safe side.
 */
export function fsyncsWorkingTree(configPath: string): boolean {
  try {
    return loadWorkingTreeSettings(configPath).fsync;
  } catch {
    return true;
  }
}
