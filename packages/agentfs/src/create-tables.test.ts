import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createTables } from './create-tables.js';
import { makeTempDir } from './test-support/temp-dir.js';

const DDL = `
CREATE TABLE IF NOT EXISTS t_one (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS t_one_name ON t_one (name);
CREATE TABLE IF NOT EXISTS t_two (id INTEGER PRIMARY KEY);
`;

describe('createTables', () => {
  it('creates every table and index in one commit, and adds one that a newer version brings', () => {
    const db = new Database(join(makeTempDir(), 'x.db'));
    try {
      db.pragma('journal_mode = WAL');
      createTables(db, DDL);
      const names = () => db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 't_%' ORDER BY name").pluck().all() as string[];
      expect(names()).toEqual(['t_one', 't_one_name', 't_two']);
      createTables(db, `${DDL}CREATE TABLE IF NOT EXISTS t_three (id INTEGER PRIMARY KEY);`);
      expect(names()).toEqual(['t_one', 't_one_name', 't_three', 't_two']);
    } finally {
      db.close();
    }
  });

  it('takes no write lock when everything is there', () => {
    const path = join(makeTempDir(), 'x.db');
    const db = new Database(path, { timeout: 50 });
    const other = new Database(path);
    try {
      db.pragma('journal_mode = WAL');
      createTables(db, DDL);
      // another connection holds the write lock: a write would fail with SQLITE_BUSY
      other.exec('BEGIN IMMEDIATE');
      expect(() => createTables(db, DDL)).not.toThrow();
      expect(() => createTables(db, 'CREATE TABLE IF NOT EXISTS t_four (id INTEGER PRIMARY KEY);')).toThrow(/busy|locked/i);
    } finally {
      other.exec('ROLLBACK');
      other.close();
      db.close();
    }
  });

  it('joins the transaction it is called in', () => {
    const db = new Database(':memory:');
    try {
      db.transaction(() => createTables(db, DDL))();
      expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name LIKE 't_%'").pluck().get()).toBe(3);
    } finally {
      db.close();
    }
  });
});
