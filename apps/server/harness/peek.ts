// A short-lived read-only connection to a server's database file: it never takes a write lock, so
// a test or a load tool can look while the server writes, without disturbing what it looks at.
import Database from 'better-sqlite3';

export function peek<T>(databasePath: string, fn: (db: Database.Database) => T): T {
  const db = new Database(databasePath, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    return fn(db);
  } finally {
    db.close();
  }
}
