import { mkdirSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadManifestDir, writeManifestStore, type AirFiles } from '../manifest-store.js';
import type { AirResult } from '../diagnostic.js';
import type { ValidatedManifest } from '../validate.js';

/** `AirFiles` on the local disk; writes go through a temp file and a rename. */
export const nodeAirFiles: AirFiles = {
  list(dir) {
    try {
      return readdirSync(dir);
    } catch {
      return undefined;
    }
  },
  isDirectory(path) {
    try {
      return statSync(path).isDirectory();
    } catch {
      return false;
    }
  },
  readText(path) {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return undefined;
    }
  },
  writeBytes(path, bytes) {
    mkdirSync(dirname(path), { recursive: true });
    const temp = `${path}.${process.pid}.tmp`;
    writeFileSync(temp, bytes);
    renameSync(temp, path);
  },
  join,
};

/** Loads and validates the manifest directory `dir` from disk. */
export function loadManifestDirectory(dir: string): AirResult<ValidatedManifest> {
  return loadManifestDir(nodeAirFiles, dir);
}

/** Writes a loaded manifest's nodes under `dir/.store/nodes/sha256/` and `dir/manifest.air.cbor`. */
export function writeManifestDirectoryStore(dir: string, loaded: ValidatedManifest): string[] {
  return writeManifestStore(nodeAirFiles, dir, loaded);
}
