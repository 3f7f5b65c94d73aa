// A PostgreSQL server of the bench's own, durable as a production one: fsync on, full page writes,
// synchronous_commit on (PostgreSQL's defaults). The test server (scripts/postgres-for-tests.mjs)
// turns fsync off, and a commit that never reaches the disk would flatter the durable-create figure,
// so the bench never borrows it. Started in a temp directory on a free port, removed at the end.
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../../scripts/free-port.mjs';
import { postgresBinDir } from '../../../scripts/postgres-for-tests.mjs';

export interface BenchPostgres {
  /** Where the server is (host, port, user), for the printout: never a password. */
  location: string;
  /** A fresh, empty database for one phase: its URL. */
  createDatabase(): Promise<string>;
  stop(): Promise<void>;
}

/** Runs a PostgreSQL binary; as root, as the `postgres` user (PostgreSQL refuses to run as root). */
function run(binary: string, args: string[]): void {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL's binaries are missing: apt-get install postgresql (or set PG_BIN)");
  const command = [join(bin, binary), ...args].map((a) => `'${a.replaceAll("'", `'\\''`)}'`).join(' ');
  const result =
    process.getuid?.() === 0
      ? spawnSync('su', ['postgres', '-s', '/bin/sh', '-c', command], { encoding: 'utf8' })
      : spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${binary} failed: ${result.stderr}${result.stdout}`);
}

/** The server's URL with `database` as its database (query parameters such as sslmode kept). */
function onDatabase(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: onDatabase(serverUrl, 'postgres') });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Refuses a server that would not make a commit durable: the figure would not be what it says. */
async function checkDurable(url: string): Promise<void> {
  await admin(url, async (client) => {
    for (const [setting, wanted] of [
      ['fsync', 'on'],
      ['synchronous_commit', 'on'],
    ]) {
      const { rows } = await client.query(`SHOW ${setting}`);
      if (rows[0][setting] !== wanted)
        throw new Error(`the PostgreSQL server runs with ${setting}=${rows[0][setting]}: not durable, not benched`);
    }
  });
}

let databases = 0;
function withDatabases(serverUrl: string, stop: () => Promise<void>): BenchPostgres {
  const { username, host } = new URL(serverUrl);
  const created: string[] = [];
  return {
    location: `${username ? `${username}@` : ''}${host}`,
    createDatabase: async () => {
      const name = `reflow_bench_${process.pid}_${++databases}`;
      await admin(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
      created.push(name);
      return onDatabase(serverUrl, name);
    },
    async stop() {
      // Dropped even on a server started here: a server of your own keeps nothing of the bench.
      await admin(serverUrl, async (client) => {
        for (const name of created.splice(0)) await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      });
      await stop();
    },
  };
}

/** `serverUrl`: a server of your own (a user allowed to CREATE DATABASE); else one started here. */
export async function startBenchPostgres(serverUrl?: string): Promise<BenchPostgres> {
  if (serverUrl) {
    await checkDurable(serverUrl);
    return withDatabases(serverUrl, async () => {});
  }
  const home = mkdtempSync(join(tmpdir(), 'reflow-bench-postgres-'));
  const dataDir = join(home, 'data');
  if (process.getuid?.() === 0) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(home, id('-u'), id('-g'));
  }
  run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8']);
  const port = await freePort();
  const settings = `-p ${port} -c listen_addresses='127.0.0.1' -c unix_socket_directories='' -c max_connections=200`;
  run('pg_ctl', ['start', '-D', dataDir, '-l', join(home, 'server.log'), '-w', '-t', '60', '-o', settings]);
  const url = `postgres://postgres@127.0.0.1:${port}`;
  const stop = async () => {
    try {
      run('pg_ctl', ['stop', '-D', dataDir, '-m', 'fast', '-w']);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  };
  try {
    await checkDurable(url);
  } catch (error) {
    await stop();
    throw error;
  }
  return withDatabases(url, stop);
}
