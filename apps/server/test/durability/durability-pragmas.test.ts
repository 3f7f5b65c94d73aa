// "Accepted means durable" rests on three pragmas: WAL, synchronous=FULL and foreign keys. They are
// read back here from the connection the running server writes tasks through, and from a second
// connection on the same file, as another process (the CLI's import, a second server) opens it.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { openSqliteStore, type SqliteStore } from '@reflow/db';
import { startTestServer } from '../helpers/test-server.ts';
import { SQLITE_PRAGMAS, sqliteOnlyFile } from '../../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile(SQLITE_PRAGMAS);

/** SQLite's numbers for PRAGMA synchronous. */
const SYNCHRONOUS = { OFF: 0, NORMAL: 1, FULL: 2, EXTRA: 3 } as const;

const pragmasOf = (db: Database.Database) => ({
  journalMode: db.pragma('journal_mode', { simple: true }),
  synchronous: db.pragma('synchronous', { simple: true }),
  foreignKeys: db.pragma('foreign_keys', { simple: true }),
});

test('the running server writes through a WAL connection with synchronous=FULL and foreign keys on', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  assert.equal(server.services.store.dialect, 'sqlite');
  const { connection } = server.services.store as SqliteStore;
  assert.deepEqual(pragmasOf(connection.sqlite), {
    journalMode: 'wal',
    synchronous: SYNCHRONOUS.FULL,
    foreignKeys: 1,
  });

  // A second connection opened the way every process opens the file gets the same pragmas.
  const second = openSqliteStore(server.databasePath);
  t.after(() => second.close());
  assert.deepEqual(pragmasOf(second.connection.sqlite), {
    journalMode: 'wal',
    synchronous: SYNCHRONOUS.FULL,
    foreignKeys: 1,
  });

  // WAL is a property of the file: a bare connection that sets nothing still finds it.
  const bare = new Database(server.databasePath, { readonly: true });
  t.after(() => bare.close());
  assert.equal(bare.pragma('journal_mode', { simple: true }), 'wal');
});

test('SQLITE_SYNCHRONOUS=NORMAL is the one weaker setting the server accepts, and it is what its connection then has', async (t) => {
  const server = await startTestServer({ WORKERS: '0', SQLITE_SYNCHRONOUS: 'NORMAL' });
  t.after(() => server.close());
  const { connection } = server.services.store as SqliteStore;
  assert.equal(connection.sqlite.pragma('synchronous', { simple: true }), SYNCHRONOUS.NORMAL);
  await assert.rejects(startTestServer({ WORKERS: '0', SQLITE_SYNCHRONOUS: 'OFF' }), /SQLITE_SYNCHRONOUS/);
});
