// A task create (a task-declared tools/call of reflow_month, 2026-07-28; or the same work through the
// synchronous path, in the background) that meets trouble in the database is never answered with the
// driver's text as a tool error the caller would read as "your request was wrong". The route answers
// 503 for a database it finds down before the call (its ping), and for trouble met inside the create
// itself (a lock wait timed out, the database lost while the create waits, a SQLite file locked by
// another process); nothing of the driver reaches the caller, while refusals (an unknown room) stay
// tool errors with their text. A direct create that meets such trouble is answered once, as the SDK
// path answers it, without running again through the SDK.
// Each server here has a database of its own (a PostgreSQL it stops, a database on the shared test
// server, a SQLite file): store-independent.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test, type TestContext } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createTestDatabase, startExtraPostgres } from '../../../../scripts/postgres-for-tests.mjs';
import { mcpBody, mcpHeaders, parseMcpBody } from '../../harness/mcp-wire.ts';
import { legacyMcpBody, legacyMcpHeaders } from '../../harness/mcp-wire-2025.ts';
import { startServerProcess, type ServerProcess } from '../../harness/server-process.ts';
import { requestsCounted } from '../wire/direct-answer-checks.ts';

/** A dry run of the demo month: every create below is this one, on a window of its own (no dedupe). */
const REFLOW = { month: '2026-09', offline_rooms: ['studio-b'], to: '2026-09-20', dry_run: true };
const window = (day: number) => ({ ...REFLOW, from: `2026-09-${String(day).padStart(2, '0')}` });

/** What the drivers say: none of it may reach a caller. */
const DRIVER_TEXT =
  /lock timeout|canceling statement|terminating connection|Connection terminated|ECONNREFUSED|database is locked|SQLITE_|administrator command/i;

/**
 * A task-declared tools/call of reflow_month; `progress` sends a progress token, which the route's
 * direct create leaves to the SDK (the request is then served only by the TasksExtension's handler).
 */
async function create(
  server: ServerProcess,
  args: Record<string, unknown>,
  progress = false,
): Promise<{ status: number; body: any; text: string }> {
  const params = { name: 'reflow_month', arguments: args };
  const body = JSON.parse(mcpBody('tools/call', params));
  if (progress) body.params._meta.progressToken = 'create-trouble';
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: mcpHeaders('tools/call', 'reflow_month'),
    body: JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: parseMcpBody(text), text };
}

/**
 * The same work from a client without the extension, in the background (`background: true`): served
 * by the tool's synchronous path (`run`), which creates the task and answers at once.
 */
async function createInBackground(
  server: ServerProcess,
  args: Record<string, unknown>,
): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: mcpHeaders('tools/call', 'reflow_month'),
    body: mcpBody('tools/call', { name: 'reflow_month', arguments: { ...args, background: true } }, { tasks: false }),
  });
  const text = await response.text();
  return { status: response.status, body: parseMcpBody(text), text };
}

/** The same create from a 2025-era client: a tools/call with params.task, no Mcp-Method header. */
async function createLegacy(
  server: ServerProcess,
  args: Record<string, unknown>,
): Promise<{ status: number; body: any; text: string }> {
  const response = await fetch(server.mcpUrl, {
    method: 'POST',
    headers: legacyMcpHeaders(),
    body: legacyMcpBody('tools/call', { name: 'reflow_month', arguments: args, task: {} }),
  });
  const text = await response.text();
  return { status: response.status, body: parseMcpBody(text), text };
}

/** An answer that is an error for the server's side, not a tool error, and quotes no driver. */
function assertNoDriverText(answer: { status: number; body: any; text: string }, what: string): void {
  const seen = `${what}: HTTP ${answer.status} ${answer.text.slice(0, 600)}`;
  assert.equal(answer.body?.result, undefined, `not a tool result (${seen})`);
  assert.equal(answer.body?.error?.code, -32603, `a JSON-RPC internal error (${seen})`);
  assert.doesNotMatch(answer.text, DRIVER_TEXT, seen);
}

/** The route's answer for store trouble (routes/mcp.ts, database-unavailable.ts). */
function assertStoreTrouble(answer: { status: number; body: any; text: string }, code: string): void {
  const seen = `HTTP ${answer.status} ${answer.text.slice(0, 600)}`;
  assert.equal(answer.status, 503, seen);
  assert.equal(answer.body?.error?.data?.code, code, seen);
  assert.doesNotMatch(answer.text, DRIVER_TEXT, seen);
}

/** The refusal still reads as one: a tool error naming what was wrong. */
async function assertRefusalIntact(server: ServerProcess): Promise<void> {
  const refused = await create(server, { ...window(1), offline_rooms: ['studio-z'] });
  assert.equal(refused.body?.result?.isError, true, refused.text);
  assert.match(refused.body.result.content[0].text, /^RFL_UNKNOWN_ROOM: Unknown room studio-z/);
}

/** A server process on `database`, killed when the test ends. */
async function serverOn(t: TestContext, database: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const server = await startServerProcess(database, { WORKERS: '0', ...env }, true);
  t.after(() => server.kill());
  return server;
}

/**
 * Waits until a session other than `client`'s waits for a relation lock: the create, which sends
 * BEGIN, its statement and COMMIT together (so its query reads `commit` while it waits).
 */
async function untilACreateWaitsForTheLock(client: pg.Client): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const { rows } = await client.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND wait_event = 'relation' AND pid <> pg_backend_pid()`,
    );
    if (rows[0].n > 0) return;
    await sleep(25);
  }
  throw new Error('no create waited for the lock');
}

test('PostgreSQL: a create whose lock wait times out, or whose database is lost while it waits, quotes no driver; one while the database is down gets 503', async (t) => {
  const postgres = await startExtraPostgres('create-trouble');
  t.after(() => postgres.remove());
  const url = `${postgres.url}/postgres`;
  // Two nodes on the database: one whose lock waits time out at once, one whose waits do not.
  const impatient = await serverOn(t, url, { PG_LOCK_TIMEOUT_MS: '300' });
  const patient = await serverOn(t, url, { PG_LOCK_TIMEOUT_MS: '0' });
  assert.equal((await create(impatient, window(2))).body?.result?.resultType, 'task', 'a create works');
  await assertRefusalIntact(impatient);
  const background = await createInBackground(impatient, window(8));
  assert.ok(
    background.body?.result && !background.body.result.isError,
    `a background create works: ${background.text}`,
  );

  // Another session holds the tasks table against writes: the create's lock wait times out.
  const locker = new pg.Client({ connectionString: url });
  await locker.connect();
  t.after(() => locker.end().catch(() => undefined));
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE tasks IN EXCLUSIVE MODE');
  const busy = await create(impatient, window(3));
  const busyThroughSdk = await create(impatient, window(4), true);
  const busyInBackground = await createInBackground(impatient, window(7));
  await t.test('a lock wait timed out: not a tool error with the driver text', () => {
    assertNoDriverText(busy, 'direct create');
    assertNoDriverText(busyThroughSdk, 'create with a progress token');
    assertNoDriverText(busyInBackground, 'create in the background, without the extension');
  });
  await t.test('a lock wait timed out: 503 RFL_DATABASE_BUSY', () => {
    assertStoreTrouble(busy, 'RFL_DATABASE_BUSY');
    assertStoreTrouble(busyThroughSdk, 'RFL_DATABASE_BUSY');
    assertStoreTrouble(busyInBackground, 'RFL_DATABASE_BUSY');
  });

  // The create waits for the lock (the route's ping found the database up); the database goes away.
  // Only this node's sessions are left to wait for the lock.
  await impatient.kill();
  const waiting = create(patient, window(5), true);
  await untilACreateWaitsForTheLock(locker);
  locker.on('error', () => undefined); // the stop ends this session too
  await postgres.stop();
  const lost = await waiting;
  await t.test('the database lost while the create waits: not a tool error with the driver text', () => {
    assertNoDriverText(lost, 'create waiting when the database stopped');
  });
  await t.test('the database lost while the create waits: 503 RFL_DATABASE_UNAVAILABLE', () =>
    assertStoreTrouble(lost, 'RFL_DATABASE_UNAVAILABLE'),
  );

  // The database is down before the call: the direct create meets it, and the route finds it (its
  // ping) before the SDK serves the create with a progress token.
  for (const progress of [false, true]) {
    const down = await create(patient, window(6), progress);
    assertStoreTrouble(down, 'RFL_DATABASE_UNAVAILABLE');
  }
});

/**
 * Awaits `answering` while cancelling (pg_cancel_backend: query_canceled, store trouble) every wait of
 * a create for a lock in the database `monitor` is connected to (its statement inserts into "tasks");
 * resolves with the answer and how many create transactions waited. Other waits (a sweep's DELETE of
 * expired rows) are left to end with the lock. A row is judged by its query only: pg_stat_activity
 * reads `query` from a snapshot taken as the monitor's statement starts, but `wait_event` live, so a
 * row can pair a create's earlier statement (its advisory locks) with its INSERT's wait. Cancelling
 * every waiter once cancelled such a create uncounted (a full run, once); the next look, 20 ms on,
 * reads it whole. The waits never time out by themselves (lock_timeout off), so each attempt of the
 * create to write is seen and counted once.
 */
async function cancellingLockWaits<T>(
  monitor: pg.Client,
  answering: Promise<T>,
): Promise<{ answer: T; waits: number }> {
  const answered = answering.then(() => true);
  const seen = new Set<string>();
  for (;;) {
    const { rows } = await monitor.query(
      `SELECT pid, xact_start FROM pg_stat_activity
        WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()
          AND query ILIKE '%insert into "tasks"%'`,
    );
    for (const { pid, xact_start } of rows) {
      seen.add(`${pid} ${xact_start?.toISOString()}`);
      await monitor.query('SELECT pg_cancel_backend($1)', [pid]);
    }
    if (await Promise.race([answered, sleep(20, false)])) break;
  }
  return { answer: await answering, waits: seen.size };
}

test("PostgreSQL: a create whose start meets store trouble on the direct path reaches the store once, not again through the SDK, and gets the SDK path's answer (2026-07-28 and 2025-11-25)", async (t) => {
  const database = await createTestDatabase('create_trouble_once');
  t.after(() => database.drop());
  // No lock_timeout: a create's lock wait ends only when the test cancels it. The second node
  // answers every create through the SDK (its direct path off), for comparison.
  const server = await serverOn(t, database.url, { PG_LOCK_TIMEOUT_MS: '0' });
  const sdkOnly = await serverOn(t, database.url, { PG_LOCK_TIMEOUT_MS: '0', MCP_FAST_TASK_CALLS: 'false' });
  assert.equal((await create(server, window(2))).body?.result?.resultType, 'task', 'a create works');
  assert.equal((await createLegacy(server, window(3))).body?.result?.task?.status, 'working', 'a 2025 create works');

  const locker = new pg.Client({ connectionString: database.url });
  const monitor = new pg.Client({ connectionString: database.url });
  for (const client of [locker, monitor]) {
    client.on('error', () => undefined); // the database's drop at the end ends these sessions too
    await client.connect();
    t.after(() => client.end().catch(() => undefined));
  }
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE tasks IN EXCLUSIVE MODE');
  const waited: Record<string, number> = {};
  for (const [era, send] of [
    ['2026-07-28', create],
    ['2025-11-25', createLegacy],
  ] as const) {
    const base = server.mcpUrl.replace(/\/mcp$/, '');
    const countedBefore = await requestsCounted(base, 'tools/call', 'direct');
    const [direct, throughSdk] = [
      await cancellingLockWaits(monitor, send(server, window(10))),
      await cancellingLockWaits(monitor, send(sdkOnly, window(10))),
    ];
    assert.equal(
      (await requestsCounted(base, 'tools/call', 'direct')) - countedBefore,
      1,
      `${era}: the create answered by the direct path is counted once in reflow_mcp_requests_total`,
    );
    const seen = ({ answer }: typeof direct) => ({ status: answer.status, text: answer.text });
    assert.deepEqual(seen(direct), seen(throughSdk), `${era}: the answer differs from the SDK path's`);
    // 2026-07-28: 503 with its code. 2025-11-25: an in-band internal error (the SDK's SSE answer is
    // under way before the tool runs, too late for a 503).
    if (era === '2026-07-28') assertStoreTrouble(direct.answer, 'RFL_DATABASE_BUSY');
    else {
      assert.equal(direct.answer.status, 200, direct.answer.text);
      assertNoDriverText(direct.answer, era);
    }
    waited[era] = direct.waits;
    waited[`${era} through the SDK`] = throughSdk.waits;
  }
  // Once each: not again through the SDK after the direct path met the trouble.
  assert.deepEqual(
    waited,
    { '2026-07-28': 1, '2026-07-28 through the SDK': 1, '2025-11-25': 1, '2025-11-25 through the SDK': 1 },
    'how many times each create waited for the tasks table',
  );
  await locker.query('ROLLBACK');
  assert.equal((await create(server, window(12))).body?.result?.resultType, 'task', 'a create works again');
});

test('SQLite: a create that finds the file locked by another process past busy_timeout answers 503 RFL_DATABASE_BUSY, quoting no driver', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-create-trouble-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'reflow.db');
  const server = await serverOn(t, file);
  assert.equal((await create(server, window(2))).body?.result?.resultType, 'task', 'a create works');
  await assertRefusalIntact(server);

  // Another process's write transaction (a second node, an import, a sqlite3 shell) holds the file.
  const other = new Database(file);
  t.after(() => other.close());
  other.exec('BEGIN IMMEDIATE');
  try {
    // The server waits out its busy_timeout (5 s) once, on the direct create: not again in the SDK's.
    const started = performance.now();
    assertStoreTrouble(await create(server, window(3)), 'RFL_DATABASE_BUSY');
    const waitedMs = performance.now() - started;
    t.diagnostic(`the busy create was answered after ${Math.round(waitedMs)} ms`);
    assert.ok(waitedMs < 9_500, `answered after ${Math.round(waitedMs)} ms: one busy_timeout of 5 s, not two`);
  } finally {
    other.exec('ROLLBACK');
  }
  assert.equal((await create(server, window(4))).body?.result?.resultType, 'task', 'a create works again');
});
