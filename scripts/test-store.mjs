// Which store the test run exercises: REFLOW_TEST_STORE=sqlite (the default) or postgres.
// `npm test` (scripts/run-tests.mjs) runs every test file once per store; the shared test helpers
// read this module to open their stores and servers on the chosen one. On PostgreSQL every server
// or engine a test starts on "a fresh database" gets its own database from createTestDatabase();
// a second server or process "on the same file" is a second store on the same database.
import { mkdtempSync, rmSync } from 'node:fs';
import * as nodeTest from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase } from './postgres-for-tests.mjs';

export const TEST_STORES = ['sqlite', 'postgres'];

/** The store of this run, from REFLOW_TEST_STORE; an unknown value stops the run. */
export function testStoreName() {
  const name = process.env.REFLOW_TEST_STORE || 'sqlite';
  if (!TEST_STORES.includes(name))
    throw new Error(`REFLOW_TEST_STORE=${name} is not a store; use one of ${TEST_STORES.join(', ')}`);
  return name;
}

export const onPostgres = () => testStoreName() === 'postgres';

/**
 * Test options for a test that is about SQLite itself: skipped on PostgreSQL, with `reason`
 * printed in the run's output. Use as `test(name, sqliteOnly('why'), fn)`.
 */
export function sqliteOnly(reason) {
  return onPostgres() ? { skip: `SQLite only: ${reason}` } : {};
}

/**
 * node:test's functions for a file whose every test is about SQLite itself: on PostgreSQL each
 * test and suite is skipped with `reason` printed, and the hooks (which would start servers on the
 * file) do nothing. Use as `const { test, before, after } = sqliteOnlyFile('why');`.
 */
export function sqliteOnlyFile(reason) {
  if (!onPostgres()) return nodeTest;
  const skipped = (run) => (name) => run(name, { skip: `SQLite only: ${reason}` }, () => {});
  const noHook = () => {};
  return {
    ...nodeTest,
    test: skipped(nodeTest.test),
    it: skipped(nodeTest.it),
    describe: skipped(nodeTest.describe),
    suite: skipped(nodeTest.suite),
    before: noHook,
    after: noHook,
    beforeEach: noHook,
    afterEach: noHook,
  };
}

/** Options for a PostgreSQL twin of a SQLite-only test: skipped on SQLite. */
export function postgresOnly(reason) {
  return onPostgres() ? {} : { skip: `PostgreSQL only: ${reason}` };
}

/**
 * A fresh, empty database of this run's store: `location` (a SQLite file path or a postgres://
 * URL), the server environment that selects it, and `drop()`.
 */
export async function freshTestDatabase() {
  if (onPostgres()) {
    const database = await createTestDatabase();
    return { location: database.url, env: { DATABASE_URL: database.url }, drop: () => database.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'reflow-test-'));
  const path = join(dir, 'reflow.db');
  return {
    location: path,
    env: { DATABASE_PATH: path },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The server environment for a database `location` (a path or a postgres:// URL). */
export function databaseEnv(location) {
  return /^postgres(ql)?:\/\//.test(location) ? { DATABASE_URL: location } : { DATABASE_PATH: location };
}

/** The reason of the tests that move the store's clock to pass a lease or a TTL. */
export const MOVES_THE_CLOCK =
  "moves the store's clock to pass a lease or a TTL (SQLite takes an injected clock; PostgreSQL judges time by the database's own clock, which a test cannot move)";

/** The reason of the tests of the same-host recovery by pid, which the engine does on SQLite only. */
export const SAME_HOST_PIDS =
  "same-host recovery by pid (SQLite's single host); on PostgreSQL a dead node is found by its lapsed heartbeat, never by pid";

/**
 * The reason of the tests that still look into the SQLite file with a connection of their own
 * (better-sqlite3) to check what the server wrote: to run on PostgreSQL they must read through the
 * store (helper.ts openTestStore, scripts/test-sql.mjs), as the converted tests do.
 */
export const READS_THE_SQLITE_FILE =
  'checks what the server wrote by reading the SQLite file with its own better-sqlite3 connection (not yet read through the store)';

export const SQLITE_PRAGMAS =
  "reads SQLite's pragmas (journal_mode=WAL, synchronous=FULL, foreign_keys) from the server's connection and a second one";
export const SQLITE_QUERY_PLANS = "checks the plans SQLite chooses (EXPLAIN QUERY PLAN) for its store's hot queries";
