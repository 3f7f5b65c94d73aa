#!/usr/bin/env node
// A throwaway PostgreSQL server for the tests, started by the project itself: Debian's PostgreSQL
// binaries, `initdb` into a temporary directory and `pg_ctl start` on a free port of 127.0.0.1.
// PostgreSQL refuses to run as root, so as root the server runs as the `postgres` user.
//
// One server per worktree, shared by every test file (each makes its own database with
// createTestDatabase): the first test process that needs it starts it, later ones find it through a
// state file, and `npm test`'s posttest stops it. `TEST_DATABASE_URL` (a server of your own, with a
// user allowed to CREATE DATABASE) skips all of this.
//
//   node scripts/postgres-for-tests.mjs start   prints the server's URL
//   node scripts/postgres-for-tests.mjs stop
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chownSync,
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { freePort } from './free-port.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Per worktree, so two checkouts on one machine never stop each other's server. */
const home = join(tmpdir(), `reflow-test-postgres-${createHash('sha256').update(root).digest('hex').slice(0, 12)}`);
const stateFile = join(home, 'server.json');
const lockFile = join(home, 'lock');
const dataDir = join(home, 'data');

/** The directory of Debian's PostgreSQL binaries (the newest installed), or PG_BIN. */
export function postgresBinDir() {
  if (process.env.PG_BIN) return existsSync(join(process.env.PG_BIN, 'initdb')) ? process.env.PG_BIN : undefined;
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? readdirSync(base)
        .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions.length ? join(base, versions[0], 'bin') : undefined;
}

const asRoot = () => process.getuid?.() === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
function runPostgresBinary(binary, args) {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL's binaries are missing: apt-get install postgresql (or set PG_BIN)");
  const command = join(bin, binary);
  const quoted = [command, ...args].map((a) => `'${String(a).replaceAll("'", `'\\''`)}'`).join(' ');
  const result = asRoot()
    ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', quoted], { encoding: 'utf8' })
    : spawnSync(command, args, { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(
      `${binary} failed (${result.error?.message ?? `exit ${result.status}`}): ${result.stderr}${result.stdout}`,
    );
  return result.stdout;
}

async function reachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

function readState() {
  try {
    return JSON.parse(readFileSync(stateFile, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Holds a lock file while `fn` runs, so test processes starting together start one server. */
async function withLock(fn) {
  mkdirSync(home, { recursive: true });
  const deadline = Date.now() + 120_000;
  for (;;) {
    try {
      closeSync(openSync(lockFile, 'wx'));
      break;
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
      // A lock left by a process that died while starting the server.
      if (Date.now() - statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs > 60_000)
        rmSync(lockFile, { force: true });
      if (Date.now() > deadline) throw new Error(`Timed out waiting for ${lockFile}`, { cause: error });
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockFile, { force: true });
  }
}

/**
 * Starts the shared test server unless it runs already; resolves with its URL (no database name:
 * connect to `postgres`). `durable` keeps fsync on (for benchmarks); the tests run without it,
 * since their server is thrown away (the store itself never turns synchronous_commit off).
 */
export async function startPostgres({ durable = false } = {}) {
  if (process.env.TEST_DATABASE_URL) return process.env.TEST_DATABASE_URL;
  return withLock(async () => {
    const state = readState();
    if (state && (await reachable(state.url))) return state.url;
    if (existsSync(dataDir)) {
      // A server of an earlier run that was not stopped cleanly: start afresh.
      try {
        runPostgresBinary('pg_ctl', ['stop', '-D', dataDir, '-m', 'immediate', '-w']);
      } catch {
        // not running
      }
      rmSync(dataDir, { recursive: true, force: true });
    }
    mkdirSync(dataDir, { recursive: true });
    if (asRoot()) {
      const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
      if (!Number.isInteger(uid))
        throw new Error('No `postgres` user to run the server as (apt-get install postgresql)');
      chownSync(home, uid, gid);
      chownSync(dataDir, uid, gid);
    }
    runPostgresBinary('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
    const port = await freePort();
    const settings = [
      `-p ${port}`,
      "-c listen_addresses='127.0.0.1'",
      "-c unix_socket_directories=''",
      '-c max_connections=300',
      durable ? '' : '-c fsync=off -c full_page_writes=off',
    ].join(' ');
    runPostgresBinary('pg_ctl', [
      'start',
      '-D',
      dataDir,
      '-l',
      join(dataDir, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      settings,
    ]);
    const url = `postgres://postgres@127.0.0.1:${port}`;
    writeFileSync(stateFile, JSON.stringify({ url, port, dataDir }));
    return url;
  });
}

/** Stops the shared test server and removes its files (a no-op when none runs). */
export async function stopPostgres() {
  if (process.env.TEST_DATABASE_URL) return;
  await withLock(async () => {
    if (existsSync(dataDir)) {
      try {
        runPostgresBinary('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w']);
      } catch {
        // not running
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(stateFile, { force: true });
  });
}

/**
 * A fresh database on the shared test server, for one test file: its URL, and `drop()` (which ends
 * its remaining connections). Empty, or a copy of the database `template` (which nobody may be
 * connected to).
 */
export async function createTestDatabase(prefix = 'reflow_test', { template } = {}) {
  const server = await startPostgres();
  const name = `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  await adminQuery(server, `CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`);
  return {
    url: `${server}/${name}`,
    name,
    async drop() {
      const client = new pg.Client({ connectionString: `${server}/postgres` });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Whether the shared test server holds a database called `name`. */
export async function testDatabaseExists(name) {
  const server = await startPostgres();
  const { rows } = await adminQuery(server, 'SELECT 1 FROM pg_database WHERE datname = $1', [name]);
  return rows.length > 0;
}

/**
 * Renames the test database `from` to `to` (nobody may be connected to it). Resolves false, and
 * drops `from`, when `to` exists already: another process published the same thing first.
 */
export async function publishTestDatabase(from, to) {
  const server = await startPostgres();
  try {
    await adminQuery(server, `ALTER DATABASE "${from}" RENAME TO "${to}"`);
    return true;
  } catch (error) {
    if (error.code !== '42P04') throw error; // duplicate_database
    await adminQuery(server, `DROP DATABASE IF EXISTS "${from}" WITH (FORCE)`);
    return false;
  }
}

/** One statement on the server's `postgres` database, on a connection of its own. */
async function adminQuery(server, text, values) {
  const admin = new pg.Client({ connectionString: `${server}/postgres` });
  await admin.connect();
  try {
    return await admin.query(text, values);
  } finally {
    await admin.end();
  }
}

/**
 * An extra throwaway server of its own (not the shared one), for a test that stops and starts
 * its database mid-run: `stop()` (`pg_ctl stop -m fast`) and `start()` again on the same port and
 * data, `remove()` at the end. `url` has no database name: connect to `postgres`.
 */
export async function startExtraPostgres(name) {
  if (!/^[a-z0-9-]+$/.test(name)) throw new Error(`An extra server's name is [a-z0-9-]+, not ${JSON.stringify(name)}`);
  const extraHome = join(tmpdir(), `${home.split('/').pop()}-${name}-${process.pid}`);
  const extraData = join(extraHome, 'data');
  rmSync(extraHome, { recursive: true, force: true });
  mkdirSync(extraData, { recursive: true });
  if (asRoot()) {
    const uid = Number(spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    const gid = Number(spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(extraHome, uid, gid);
    chownSync(extraData, uid, gid);
  }
  runPostgresBinary('initdb', ['-D', extraData, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--no-sync']);
  const port = await freePort();
  const settings = `-p ${port} -c listen_addresses='127.0.0.1' -c unix_socket_directories='' -c fsync=off`;
  const start = () =>
    runPostgresBinary('pg_ctl', [
      'start',
      '-D',
      extraData,
      '-l',
      join(extraData, 'server.log'),
      '-w',
      '-t',
      '60',
      '-o',
      settings,
    ]);
  const stop = () => runPostgresBinary('pg_ctl', ['stop', '-D', extraData, '-m', 'fast', '-w']);
  start();
  return {
    url: `postgres://postgres@127.0.0.1:${port}`,
    start: async () => void start(),
    stop: async () => void stop(),
    async remove() {
      try {
        stop();
      } catch {
        // not running
      }
      rmSync(extraHome, { recursive: true, force: true });
    },
  };
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const command = process.argv[2];
  if (command === 'start') console.log(await startPostgres({ durable: process.argv.includes('--durable') }));
  else if (command === 'stop') await stopPostgres();
  else {
    console.error('usage: node scripts/postgres-for-tests.mjs start [--durable] | stop');
    process.exit(2);
  }
}
