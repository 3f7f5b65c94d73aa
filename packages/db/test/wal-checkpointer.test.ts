// The WAL checkpointed on a thread of its own (wal-checkpointer.ts): the server's connection no
// longer checkpoints inside its commits (below the backstop), the worker's PASSIVE checkpoints copy
// the WAL into the database file, what they copied is there after a reopen, and stopping the
// thread, or its failing, puts checkpoints back inline at SQLite's default.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { BACKSTOP_PAGES, openSqliteStore, startWalCheckpointer } from '../src/index.ts';
import { sqliteOnlyFile } from '../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile("SQLite's WAL checkpoints");

function freshFile(t: { after(fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-checkpoint-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return join(dir, 'reflow.db');
}

/** Writes about `pages` pages of rows, each insert its own commit (as the server's writes are). */
function writePages(sqlite: Database.Database, pages: number) {
  sqlite.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert = sqlite.prepare('INSERT INTO filler (body) VALUES (?)');
  for (let i = 0; i < pages * 2; i++) insert.run('x'.repeat(1800));
}

const autocheckpoint = (sqlite: Database.Database) => sqlite.pragma('wal_autocheckpoint', { simple: true });

test('the worker copies the WAL into the database; the connection does not checkpoint below the backstop', async (t) => {
  const path = freshFile(t);
  const store = openSqliteStore(path);
  await store.migrate();
  const { sqlite } = store.connection;

  // Without the thread, at the backstop's threshold: nothing reaches the database file.
  sqlite.pragma(`wal_autocheckpoint = ${BACKSTOP_PAGES}`);
  const before = statSync(path).size;
  writePages(sqlite, 300);
  await sleep(300);
  assert.equal(statSync(path).size, before, 'no checkpoint ran: the rows are only in the WAL');

  const checkpointer = startWalCheckpointer(store.connection, { everyMs: 50 });
  assert.equal(autocheckpoint(sqlite), BACKSTOP_PAGES);
  const deadline = Date.now() + 10_000;
  while (checkpointer.checkpoints === 0 && Date.now() < deadline) await sleep(20);
  assert.ok(checkpointer.checkpoints > 0, 'the worker checkpointed');
  assert.ok(statSync(path).size > before + 300 * 4096, `the database file grew: ${statSync(path).size}`);

  await checkpointer.stop();
  assert.equal(autocheckpoint(sqlite), 1000, 'inline again at the default');
  await store.close();

  // What the worker copied is in the file: the rows, whole.
  const reopened = new Database(path, { readonly: true });
  t.after(() => reopened.close());
  assert.equal(reopened.prepare('SELECT count(*) FROM filler').pluck().get(), 600);
  assert.equal(reopened.pragma('integrity_check', { simple: true }), 'ok');
});

test('a checkpointer thread that fails says so, and the connection checkpoints inline again', async (t) => {
  const path = freshFile(t);
  const store = openSqliteStore(path);
  await store.migrate();
  t.after(() => store.close());
  const failed = new Promise<Error>((resolve) =>
    // A path the thread cannot open: its first statement throws.
    startWalCheckpointer({ ...store.connection, path: join(path, 'not-a-directory', 'x.db') }, { onError: resolve }),
  );
  // The thread is unref'd (it never holds a process open): something must, while the test waits.
  const alive = setInterval(() => {}, 1_000);
  const error = await failed.finally(() => clearInterval(alive));
  assert.match(error.message, /directory|unable to open|SQLITE_CANTOPEN/i);
  assert.equal(autocheckpoint(store.connection.sqlite), 1000);
});
