import { type AcceptOptions, type AcceptResult, acceptChanges } from './accept.js';
import { AgentFS, type OpenOptions } from './agentfs.js';
import { type Change, listChanges } from './changes.js';
import { AgentFSError } from './errors.js';
import { MergeBaseLog } from './merge-base.js';
import { kindOfMode } from './mode.js';
import { OverlayFileSystem } from './overlay-fs.js';
import { toRelative } from './path.js';
import { formatUnifiedDiff } from './unified-diff.js';

/**
 * An agent's copy-on-write view of a base store. The upper database is an ordinary AgentFS file holding
 * only what the agent changed, so opening an overlay on an empty upper costs the same whatever the base's size.
 */
export class Overlay {
  readonly upper: AgentFS;
  readonly base: AgentFS;
  readonly fs: OverlayFileSystem;
  readonly mergeBase: MergeBaseLog;

  private constructor(upper: AgentFS, base: AgentFS) {
    this.upper = upper;
    this.base = base;
    this.mergeBase = new MergeBaseLog(upper.db, upper.clock);
    this.fs = new OverlayFileSystem(upper.fs, base.fs, this.mergeBase);
  }

  /** Opens (creating if missing) the upper store at `upperPath` over `base`. Overlays default to `normal` durability. */
  static open(upperPath: string, base: AgentFS, options: OpenOptions = {}): Overlay {
    if (!base.isOpen) throw new AgentFSError('EINVAL', 'open', upperPath, `the base store ${base.path} is closed`);
    return new Overlay(AgentFS.open(upperPath, { durability: 'normal', clock: base.clock, ...options }), base);
  }

  /** The overlay's key-value store (kept in the upper database). */
  get kv() {
    return this.upper.kv;
  }

  /** The overlay's tool-call log (kept in the upper database). */
  get tools() {
    return this.upper.tools;
  }

  /** Added, modified and deleted paths against the merge base, in path order. */
  changes(): Change[] {
    return listChanges(this.fs, this.mergeBase);
  }

  /**
   * Every project-relative path the overlay has kept a merge base for, in path order: the paths of `changes()`
   * and those the agent touched and put back as they were. Nothing is read or compared, so it is cheap.
   */
  touchedPaths(): string[] {
    return this.mergeBase.paths().map((path) => toRelative(path));
  }

  /** The unified diff of every change (or of those under `paths`). */
  diff(paths?: readonly string[]): string {
    const changes = this.changes();
    if (paths === undefined) return formatUnifiedDiff(changes);
    const wanted = paths.map((p) => p.replace(/^\/+/, '').replace(/\/+$/, ''));
    return formatUnifiedDiff(changes.filter((c) => wanted.some((w) => w === '' || c.path === w || c.path.startsWith(w + '/'))));
  }

  /**
   * Applies the overlay's changes to the base in one transaction (three-way where the base moved),
   * then lets every applied path fall through to the base again.
   */
  accept(options: AcceptOptions = {}): AcceptResult {
    const result = acceptChanges(this.base.fs, this.changes(), options);
    if (!options.dryRun && options.settle !== false) this.settle(result.applied.map((a) => a.path));
    return result;
  }

  /**
   * Drops the overlay's own copy of the given paths, so they read through to the base again (after the base
   * took them in an accept). Idempotent.
   */
  settle(paths: readonly string[]): void {
    const up = this.upper.fs;
    this.upper.transaction(() => {
      for (const relative of [...paths].sort().reverse()) {
        const path = '/' + relative;
        const upperEntry = up.locate(path, false);
        if (upperEntry !== undefined && kindOfMode(upperEntry.entry.mode) !== 'dir') up.unlink(path);
        up.inodes.removeWhiteout(path);
        this.mergeBase.forget(path);
      }
    });
  }

  /** Closes the upper database (the base stays open: it is shared). */
  close(): void {
    this.upper.close();
  }
}
