import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type Database from 'better-sqlite3';
import { and, asc, eq, isNull, lte } from 'drizzle-orm';
import { type BetterSQLite3Database, drizzle } from 'drizzle-orm/better-sqlite3';
import type { Clock, ConnectionOptions } from './connection.js';
import { openConnection } from './connection.js';
import { createTables } from './create-tables.js';
import { AgentFSError } from './errors.js';
import type { Overlay } from './overlay.js';
import { cairnLedger, LEDGER_DDL } from './schema.js';

/** A retired overlay as the ledger keeps it. Times are Unix milliseconds. */
export interface LedgerEntry {
  id: number;
  agentId: string;
  originalPath: string;
  retiredPath: string;
  reason: string;
  retiredAt: number;
  restoredAt: number | null;
  collectedAt: number | null;
}

const SIDE_FILES = ['', '-wal', '-shm'];

/**
 * The garbage-collection ledger in bin.db: a rejected overlay's database is moved aside, not deleted,
 * and can be restored until `collect` removes it for good.
 */
export class Ledger {
  private readonly db: Database.Database;
  private readonly orm: BetterSQLite3Database;
  private readonly clock: Clock;
  private readonly trashDir: string;

  private constructor(db: Database.Database, trashDir: string, clock: Clock) {
    this.db = db;
    this.orm = drizzle({ client: db });
    this.clock = clock;
    this.trashDir = trashDir;
    createTables(db, LEDGER_DDL);
  }

  /** Opens the ledger at `binPath` (bin.db); retired files go to `trash/` beside it. A retire cut off by a kill is finished here. */
  static open(binPath: string, options: ConnectionOptions = {}): Ledger {
    const db = openConnection(binPath, { durability: 'full', ...options });
    const ledger = new Ledger(db, join(dirname(resolve(binPath)), 'trash'), options.clock ?? Date.now);
    ledger.finishRetires();
    return ledger;
  }

  /**
   * Moves an overlay database (and its WAL files) aside and records it. Given the `Overlay` itself, it is
   * closed first, so no later write can land in the trash; given a path, the database must be closed. The
   * row is written first and names the trash file by its id, so two retires of one agent never share a file,
   * and a kill between the row and the move is finished when the ledger next opens.
   */
  retire(agentId: string, overlay: Overlay | string, reason: string): LedgerEntry {
    const overlayPath = resolve(typeof overlay === 'string' ? overlay : overlay.upper.path);
    if (typeof overlay !== 'string') overlay.close();
    if (!existsSync(overlayPath)) throw new AgentFSError('ENOENT', 'retire', overlayPath, 'no overlay database at this path');
    mkdirSync(this.trashDir, { recursive: true });
    const retiredAt = this.clock();
    const row = this.db.transaction(() => {
      const inserted = this.orm
        .insert(cairnLedger)
        .values({ agentId, originalPath: overlayPath, retiredPath: '', reason, retiredAt })
        .returning()
        .get();
      const retiredPath = join(this.trashDir, `${basename(overlayPath, '.db')}.${inserted.id}.db`);
      this.orm.update(cairnLedger).set({ retiredPath }).where(eq(cairnLedger.id, inserted.id)).run();
      return { ...inserted, retiredPath };
    })();
    moveWithSideFiles(overlayPath, row.retiredPath);
    return row;
  }

  /** Records an overlay that already lies in the trash (a ledger rebuilt after bin.db was lost), without moving it. */
  adopt(entry: Pick<LedgerEntry, 'agentId' | 'originalPath' | 'retiredPath' | 'reason' | 'retiredAt'>): LedgerEntry {
    return this.orm
      .insert(cairnLedger)
      .values({
        agentId: entry.agentId,
        originalPath: resolve(entry.originalPath),
        retiredPath: resolve(entry.retiredPath),
        reason: entry.reason,
        retiredAt: entry.retiredAt,
      })
      .returning()
      .get();
  }

  /** Moves the files of retires whose row was written but whose move a kill cut off. */
  private finishRetires(): void {
    for (const entry of this.list()) {
      if (!existsSync(entry.retiredPath) && existsSync(entry.originalPath)) {
        mkdirSync(this.trashDir, { recursive: true });
        moveWithSideFiles(entry.originalPath, entry.retiredPath);
      }
    }
  }

  /** Moves a retired overlay back to where it was; fails if it was collected or the place is taken. */
  restore(id: number): LedgerEntry {
    const entry = this.get(id);
    if (entry === undefined) throw new AgentFSError('ENOENT', 'restore', String(id), 'no ledger entry with this id');
    if (entry.collectedAt !== null) throw new AgentFSError('ENOENT', 'restore', entry.originalPath, 'the overlay was already collected');
    if (entry.restoredAt !== null) throw new AgentFSError('EINVAL', 'restore', entry.originalPath, 'the overlay was already restored');
    if (existsSync(entry.originalPath))
      throw new AgentFSError('EEXIST', 'restore', entry.originalPath, 'a database already exists at the original path');
    if (!existsSync(entry.retiredPath))
      throw new AgentFSError('ENOENT', 'restore', entry.retiredPath, 'the retired overlay is no longer in the trash');
    moveWithSideFiles(entry.retiredPath, entry.originalPath);
    const restoredAt = this.clock();
    this.orm.update(cairnLedger).set({ restoredAt }).where(eq(cairnLedger.id, id)).run();
    return { ...entry, restoredAt };
  }

  get(id: number): LedgerEntry | undefined {
    return this.orm.select().from(cairnLedger).where(eq(cairnLedger.id, id)).get();
  }

  /** Entries still restorable (neither restored nor collected), oldest first; all entries with `all`. */
  list(options: { all?: boolean; agentId?: string } = {}): LedgerEntry[] {
    const pending = and(isNull(cairnLedger.restoredAt), isNull(cairnLedger.collectedAt));
    const byAgent = options.agentId === undefined ? undefined : eq(cairnLedger.agentId, options.agentId);
    const where = options.all ? byAgent : and(pending, byAgent);
    return this.orm.select().from(cairnLedger).where(where).orderBy(asc(cairnLedger.id)).all();
  }

  /** Deletes retired overlays retired at or before `olderThan` (ms; default: all); returns what was collected. */
  collect(olderThan = Number.POSITIVE_INFINITY): LedgerEntry[] {
    const due = this.orm
      .select()
      .from(cairnLedger)
      .where(
        and(
          isNull(cairnLedger.restoredAt),
          isNull(cairnLedger.collectedAt),
          lte(cairnLedger.retiredAt, Math.min(olderThan, Number.MAX_SAFE_INTEGER)),
        ),
      )
      .orderBy(asc(cairnLedger.id))
      .all();
    const collectedAt = this.clock();
    for (const entry of due) {
      for (const suffix of SIDE_FILES) rmSync(entry.retiredPath + suffix, { force: true });
      this.orm.update(cairnLedger).set({ collectedAt }).where(eq(cairnLedger.id, entry.id)).run();
    }
    return due.map((entry) => ({ ...entry, collectedAt }));
  }

  close(): void {
    if (this.db.open) this.db.close();
  }
}

function moveWithSideFiles(from: string, to: string): void {
  for (const suffix of SIDE_FILES) {
    if (existsSync(from + suffix)) renameSync(from + suffix, to + suffix);
  }
}
