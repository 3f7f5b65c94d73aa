// Which store the test run exercises: REFLOW_TEST_STORE=sqlite (the default) or postgres.
// `npm test` (scripts/run-tests.mjs) runs every test file once per store; the shared test helpers
// read this module to open their stores and servers on the chosen one. On PostgreSQL every server
// or engine a test starts on "a fresh database" gets its own database from createTestDatabase();
// a second server or process "on the same file" is a second store on the same database.
import { copyFileSync, existsSync, mkdtempSync, renameSync, rmSync } from 'node:fs';
import * as nodeTest from 'node:test';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, publishTestDatabase, testDatabaseExists } from './postgres-for-tests.mjs';

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
export function freshTestDatabase() {
  return newTestDatabase(undefined);
}

/** A new database, empty or a copy of `template` (a SQLite file, or a PostgreSQL database's name). */
async function newTestDatabase(template) {
  if (onPostgres()) {
    const database = await createTestDatabase('reflow_test', { template });
    return { location: database.url, env: { DATABASE_URL: database.url }, drop: () => database.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'reflow-test-'));
  const path = join(dir, 'reflow.db');
  if (template) copyFileSync(template, path);
  return {
    location: path,
    env: { DATABASE_PATH: path },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * A fresh database of this run's store that `build(location)` has filled (migrated and seeded, say),
 * like freshTestDatabase() then `build`. Under `npm test` (REFLOW_TEST_TEMPLATES and
 * REFLOW_TEST_RUN_ID, set by scripts/run-tests.mjs) `build` runs once per run and `key`: the first
 * test process to ask builds a template, and every database after is a copy of it (a file copy on
 * SQLite, CREATE DATABASE … TEMPLATE on PostgreSQL), which costs a fraction of building. The
 * templates go with the run (its directory, its PostgreSQL server); on a server of your own
 * (TEST_DATABASE_URL) nothing is left behind: each database is built.
 */
export async function builtTestDatabase(key, build) {
  const templates = process.env.REFLOW_TEST_TEMPLATES;
  const runId = process.env.REFLOW_TEST_RUN_ID;
  if (!templates || !runId || (onPostgres() && process.env.TEST_DATABASE_URL)) {
    const database = await freshTestDatabase();
    await build(database.location);
    return database;
  }
  if (!/^[a-z0-9_]+$/.test(key)) throw new Error(`template key ${JSON.stringify(key)}: use [a-z0-9_]`);
  const template = onPostgres() ? `reflow_template_${key}_${runId}` : join(templates, `${key}.db`);
  if (!templatesReady.has(template))
    templatesReady.set(template, (onPostgres() ? buildPostgresTemplate : buildSqliteTemplate)(template, build));
  await templatesReady.get(template);
  return newTestDatabase(template);
}

/** Per process: each template is looked for (and built) once. */
const templatesReady = new Map();

/** Builds the SQLite template unless there; two processes may build at once, and either rename wins whole. */
async function buildSqliteTemplate(template, build) {
  if (existsSync(template)) return;
  const dir = mkdtempSync(join(tmpdir(), 'reflow-template-'));
  try {
    const path = join(dir, 'reflow.db');
    await build(path);
    // A closed SQLite database in WAL mode has folded its log back into the file.
    if (existsSync(`${path}-wal`)) throw new Error(`template ${template}: the build left ${path}-wal behind`);
    renameSync(path, template);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Builds the PostgreSQL template unless there: under a name of its own, then renamed (first one wins). */
async function buildPostgresTemplate(template, build) {
  if (await testDatabaseExists(template)) return;
  const database = await createTestDatabase('reflow_template_build');
  try {
    await build(database.url);
  } catch (error) {
    await database.drop();
    throw error;
  }
  await publishTestDatabase(database.name, template);
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

export const SQLITE_PRAGMAS =
  "reads SQLite's pragmas (journal_mode=WAL, synchronous=FULL, foreign_keys) from the server's connection and a second one";
export const SQLITE_QUERY_PLANS = "checks the plans SQLite chooses (EXPLAIN QUERY PLAN) for its store's hot queries";
