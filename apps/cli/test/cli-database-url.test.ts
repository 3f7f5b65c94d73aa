// Choosing the store from the command line: `reflow import`, `reflow mcp` and `npm run demo` on a
// real PostgreSQL database (--database-url, or $DATABASE_URL), and --database with --database-url
// refused with an error naming both.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { openPostgresStore, type PostgresStore } from '@reflow/db';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { createTestDatabase } from '../../../scripts/postgres-for-tests.mjs';
import { reflow as start, REFLOW_WEEKS, reflowArgv, root, until } from './cli-helpers.ts';

const run = (command: string, args: string[], env: Record<string, string> = {}, input?: string) =>
  spawnSync(command, args, {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, DATABASE_URL: '', DATABASE_PATH: '', REFLOW_STATE_FILE: '', ...env },
    input,
    timeout: 120_000,
  });
const reflow = (args: string[], env?: Record<string, string>, input?: string) =>
  run(process.execPath, [...reflowArgv, ...args], env, input);

let database: Awaited<ReturnType<typeof createTestDatabase>>;
let store: PostgresStore;
before(async () => {
  database = await createTestDatabase('reflow_cli');
  store = await openPostgresStore(database.url);
});
after(async () => {
  await store.close();
  await database.drop();
});

test('reflow import --database-url imports into PostgreSQL; $DATABASE_URL does the same; both flags are refused', async () => {
  const ok = reflow(['import', DEMO_SITE_PATH, '--database-url', database.url]);
  assert.equal(ok.status, 0, ok.stderr);
  assert.match(
    ok.stdout,
    new RegExp(
      `Imported Riverside Studios into 127\\.0\\.0\\.1:\\d+/${database.name}: 9 rooms, 68 series, 1010 bookings`,
    ),
  );
  assert.equal((await store.site.listRooms()).length, 9);
  assert.equal(await store.site.bookingCount(), 1010);

  const fromEnv = reflow(['import', DEMO_SITE_PATH], { DATABASE_URL: database.url });
  assert.equal(fromEnv.status, 1, 'the same database, found through DATABASE_URL');
  assert.match(fromEnv.stderr, /already holds a site; pass --replace/);

  const both = reflow(['import', DEMO_SITE_PATH, '--database', '/tmp/x.db', '--database-url', database.url]);
  assert.notEqual(both.status, 0);
  assert.match(both.stderr, /--database-url <url>.*cannot be used with option '--database <path>'/);
  assert.equal(await store.site.bookingCount(), 1010, 'nothing changed');
});

test('reflow mcp --database-url serves the tools over stdio from PostgreSQL; both flags are refused', () => {
  const requests = [
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  ];
  const served = reflow(
    ['mcp', '--database-url', database.url, '--workers', '0'],
    {},
    requests.map((r) => JSON.stringify(r)).join('\n') + '\n',
  );
  assert.equal(served.status, 0, served.stderr);
  const answers = served.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const tools = answers.find((a) => a.id === 2)?.result?.tools?.map((tool: { name: string }) => tool.name);
  assert.ok(tools?.includes('reflow_month'), served.stdout);
  assert.match(served.stderr, new RegExp(`"store":"postgres"`));

  const both = reflow(['mcp', '--database', '/tmp/x.db', '--database-url', database.url], {}, '');
  assert.notEqual(both.status, 0);
  assert.match(both.stderr, /cannot be used with option '--database <path>'/);
});

test('npm run demo -- --database-url runs the demo on PostgreSQL', () => {
  const demo = run('npm', ['run', '--silent', 'demo', '--', '--database-url', database.url]);
  assert.equal(demo.status, 0, demo.stderr + demo.stdout);
  assert.match(demo.stdout, new RegExp(`database 127\\.0\\.0\\.1:\\d+/${database.name}`));
  assert.match(demo.stdout, /completed/);
});

/** The processes whose parent is `pid`, with their command lines (NUL-separated, as the kernel keeps them). */
function childrenOf(pid: number): { pid: number; cmdline: string }[] {
  const found: { pid: number; cmdline: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The parent's pid is the fourth field, after the command name in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) !== pid) continue;
      found.push({ pid: Number(entry), cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8') });
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

test('reflow call --stdio hands the database URL to its `reflow mcp` in the environment: the password is never on a command line', async (t) => {
  const own = await createTestDatabase('reflow_cli_argv');
  t.after(() => own.drop());
  const dir = mkdtempSync(join(tmpdir(), 'reflow-cli-argv-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // The test server trusts every local connection, so a password in the URL is carried along and ignored.
  const PASSWORD = 'argv-secret-7b1e94c2';
  const secretUrl = Object.assign(new URL(own.url), { password: PASSWORD }).toString();
  const imported = reflow(['import', DEMO_SITE_PATH, '--database-url', own.url]);
  assert.equal(imported.status, 0, imported.stderr);

  const CALL = [...REFLOW_WEEKS, '--dry-run'];
  const cases: [string, string[], Record<string, string>][] = [
    ['from $DATABASE_URL', [], { DATABASE_URL: secretUrl }],
    ['from --database-url', ['--database-url', secretUrl], { DATABASE_URL: '' }],
  ];
  for (const [how, flags, env] of cases) {
    const call = start(['call', ...CALL, '--stdio', ...flags, '--state-file', join(dir, 'tasks.json'), '--json'], {
      ...env,
      DATABASE_PATH: '',
      POLL_INTERVAL_MS: '100',
    });
    // While the call runs: the `reflow mcp` it started, as `ps` shows it to any local user.
    const server = await until(
      `the server of the call ${how}`,
      () => childrenOf(call.child.pid!).find((c) => c.cmdline.split('\0').includes('mcp')),
      120_000,
    );
    const environ = readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0');
    assert.equal(await call.exited, 0, call.stderr());
    assert.doesNotMatch(server.cmdline, new RegExp(PASSWORD), `${how}: ${server.cmdline.replaceAll('\0', ' ')}`);
    assert.doesNotMatch(server.cmdline, /postgres(ql)?:/, how);
    assert.ok(environ.includes(`DATABASE_URL=${secretUrl}`), `${how}: the URL is in the server's own environment`);
    const out = JSON.parse(call.stdout().trim()) as { status: string; result: { affected: number } };
    assert.equal(out.status, 'completed', how);
    assert.equal(out.result.affected, 142, `${how}: the call ran on PostgreSQL, on the imported site`);
  }
});
