import type Database from 'better-sqlite3';

/** A prepared statement of the inode store (a name of our own, so the declaration of `prepareInodeStatements` can spell its type). */
export interface InodeStatement extends Database.Statement {}

/**
 * Every statement the inode store runs, prepared once on its connection: inodes, dentries, chunks, symlinks,
 * whiteouts and origins, and the counts behind `statfs`.
 */
export function prepareInodeStatements(db: Database.Database) {
  const p = (source: string): InodeStatement => db.prepare(source);
  return {
    child: p(`SELECT d.ino AS ino, i.mode AS mode FROM fs_dentry d JOIN fs_inode i ON i.ino = d.ino WHERE d.parent_ino = ? AND d.name = ?`),
    children: p(
      `SELECT d.name AS name, d.ino AS ino, i.mode AS mode FROM fs_dentry d JOIN fs_inode i ON i.ino = d.ino WHERE d.parent_ino = ? ORDER BY d.name`,
    ),
    hasChildren: p(`SELECT 1 FROM fs_dentry WHERE parent_ino = ? LIMIT 1`),
    inode: p(`SELECT ino, mode, nlink, uid, gid, size, atime, mtime, ctime, mtime_nsec FROM fs_inode WHERE ino = ?`),
    chunks: p(`SELECT data FROM fs_data WHERE ino = ? ORDER BY chunk_index`).pluck(),
    chunkRange: p(`SELECT chunk_index, data FROM fs_data WHERE ino = ? AND chunk_index BETWEEN ? AND ? ORDER BY chunk_index`),
    insertInode: p(
      `INSERT INTO fs_inode (mode, nlink, uid, gid, size, atime, mtime, ctime, atime_nsec, mtime_nsec, ctime_nsec) VALUES (?, 0, 0, 0, 0, ?, ?, ?, ?, ?, ?)`,
    ),
    insertFileInode: p(
      `INSERT INTO fs_inode (mode, nlink, uid, gid, size, atime, mtime, ctime, atime_nsec, mtime_nsec, ctime_nsec) VALUES (?, 1, 0, 0, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertDentry: p(`INSERT INTO fs_dentry (name, parent_ino, ino) VALUES (?, ?, ?)`),
    deleteDentry: p(`DELETE FROM fs_dentry WHERE parent_ino = ? AND name = ?`),
    moveDentry: p(`UPDATE fs_dentry SET parent_ino = ?, name = ? WHERE parent_ino = ? AND name = ?`),
    addLink: p(`UPDATE fs_inode SET nlink = nlink + 1 WHERE ino = ?`),
    dropLink: p(`UPDATE fs_inode SET nlink = nlink - 1 WHERE ino = ? RETURNING nlink`).pluck(),
    deleteInode: p(`DELETE FROM fs_inode WHERE ino = ?`),
    deleteData: p(`DELETE FROM fs_data WHERE ino = ?`),
    insertChunk: p(`INSERT INTO fs_data (ino, chunk_index, data) VALUES (?, ?, ?)`),
    setSize: p(`UPDATE fs_inode SET size = ?, mtime = ?, mtime_nsec = ?, ctime = ?, ctime_nsec = ? WHERE ino = ?`),
    setMode: p(`UPDATE fs_inode SET mode = ?, ctime = ?, ctime_nsec = ? WHERE ino = ?`),
    setMtime: p(`UPDATE fs_inode SET mtime = ?, mtime_nsec = ? WHERE ino = ?`),
    touch: p(`UPDATE fs_inode SET mtime = ?, mtime_nsec = ?, ctime = ?, ctime_nsec = ? WHERE ino = ?`),
    symlinkTarget: p(`SELECT target FROM fs_symlink WHERE ino = ?`).pluck(),
    insertSymlink: p(`INSERT OR REPLACE INTO fs_symlink (ino, target) VALUES (?, ?)`),
    deleteSymlink: p(`DELETE FROM fs_symlink WHERE ino = ?`),
    hasWhiteout: p(`SELECT 1 FROM fs_whiteout WHERE path = ?`).pluck(),
    whiteoutsIn: p(`SELECT path FROM fs_whiteout WHERE parent_path = ?`).pluck(),
    addWhiteout: p(`INSERT OR REPLACE INTO fs_whiteout (path, parent_path, created_at) VALUES (?, ?, ?)`),
    removeWhiteout: p(`DELETE FROM fs_whiteout WHERE path = ?`),
    removeWhiteoutsUnder: p(`DELETE FROM fs_whiteout WHERE path = ? OR substr(path, 1, ?) = ?`),
    allWhiteouts: p(`SELECT path FROM fs_whiteout ORDER BY path`).pluck(),
    anyWhiteout: p(`SELECT 1 FROM fs_whiteout LIMIT 1`).pluck(),
    origin: p(`SELECT base_ino FROM fs_origin WHERE delta_ino = ?`).pluck(),
    setOrigin: p(`INSERT OR REPLACE INTO fs_origin (delta_ino, base_ino) VALUES (?, ?)`),
    deleteOrigin: p(`DELETE FROM fs_origin WHERE delta_ino = ?`),
    dataVersion: p(`PRAGMA data_version`).pluck(),
    countInodes: p(`SELECT count(*) FROM fs_inode`).pluck(),
    sumSizes: p(`SELECT coalesce(sum(size), 0) FROM fs_inode`).pluck(),
  };
}

/** The inode store's prepared statements. */
export type InodeStatements = ReturnType<typeof prepareInodeStatements>;

/** Deletes an inode that has no name left, with its chunks, its symlink target and its origin. */
export function deleteInodeRows(stmt: InodeStatements, ino: number): void {
  stmt.deleteData.run(ino);
  stmt.deleteSymlink.run(ino);
  stmt.deleteOrigin.run(ino);
  stmt.deleteInode.run(ino);
}
