// Hostile input: hundreds of generated bad requests against a real server over a real socket, each
// checked for the right refusal; afterwards the server still answers and every table of data
// (bookings, tasks and their events, inputs and tombstones, the reflow audit, the site) holds
// exactly what it held before.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import type { Store } from '@reflow/db';
import { openTestStore, rpc, startTestServer, waitForTaskStatus, type TestServer } from '../helpers/test-server.ts';
import { generateHostileRequests } from './hostile-requests.ts';
import { closeRawAgent, rawPost } from '../helpers/raw-http.ts';
import { testSql } from '../../../../scripts/test-sql.mjs';

const ATTACKER = 'mallory-token-0123456789abcdef';
const VICTIM = 'victim-token-0123456789abcdef';
const BODY_LIMIT = 65_536;

/** SHA-256 over every bookings row in id order, read through a second connection to the store. */
async function bookingsChecksum(reader: Store): Promise<{ rows: number; sha256: string }> {
  const rows = await (await testSql(reader)).all('SELECT * FROM bookings ORDER BY id');
  return { rows: rows.length, sha256: createHash('sha256').update(JSON.stringify(rows)).digest('hex') };
}

/**
 * Every row, every column, of the tables a request could write data to, in a fixed order. Left out:
 * nodes (the server's own heartbeat moves on) and principal_buckets (each request, refused or not,
 * spends a rate-limit token: that is accounting, not data).
 */
async function dataSnapshot(reader: Store) {
  const sql = await testSql(reader);
  return {
    tasks: await sql.all('SELECT * FROM tasks ORDER BY id'),
    events: await sql.all('SELECT * FROM task_events ORDER BY id'),
    inputs: await sql.all('SELECT * FROM task_inputs ORDER BY task_id'),
    expired: await sql.all('SELECT * FROM expired_tasks ORDER BY id'),
    moves: await sql.all('SELECT * FROM reflow_moves ORDER BY id'),
    unresolved: await sql.all('SELECT * FROM reflow_unresolved ORDER BY id'),
    site: await sql.all('SELECT * FROM site'),
    rooms: await sql.all('SELECT * FROM rooms ORDER BY id'),
    series: await sql.all('SELECT * FROM series ORDER BY id'),
  };
}

let server: TestServer;
/** A second connection to the server's store, as another process would read it. */
let reader: Store | undefined;
let victimTasks: string[];

before(async () => {
  server = await startTestServer({
    AUTH_TOKENS: `mallory:client:${ATTACKER},victim:client:${VICTIM}`,
    BODY_LIMIT_BYTES: String(BODY_LIMIT),
    WORKERS: '1',
  });
  // The victim's tasks: real work (dry runs) whose ids the attacker is assumed to have learnt.
  victimTasks = [];
  for (const [from, to] of [
    ['2026-09-07', '2026-09-20'],
    ['2026-09-01', '2026-09-10'],
    ['2026-09-15', '2026-09-30'],
  ]) {
    const { body } = await rpc(
      server.mcpUrl,
      'tools/call',
      { name: 'reflow_month', arguments: { month: '2026-09', offline_rooms: ['studio-b'], from, to, dry_run: true } },
      { token: VICTIM },
    );
    victimTasks.push(body.result.taskId);
  }
  for (const id of victimTasks) await waitForTaskStatus(server.mcpUrl, id, ['completed'], 60_000, { token: VICTIM });
  reader = await openTestStore(server.databasePath);
});
after(async () => {
  closeRawAgent();
  await reader?.close();
  await (server as TestServer | undefined)?.close(); // unset when before() failed
});

test('at least 300 generated hostile requests each get the right refusal, and change nothing', async () => {
  const host = new URL(server.url).host;
  const rooms = (
    await rpc(server.mcpUrl, 'tools/call', { name: 'list_rooms', arguments: {} }, { token: VICTIM })
  ).body.result.structuredContent.rooms.map((r: { id: string }) => r.id);
  const cases = generateHostileRequests({
    host,
    token: ATTACKER,
    foreignTaskIds: victimTasks,
    rooms,
    bodyLimit: BODY_LIMIT,
  });
  assert.ok(cases.length >= 300, `only ${cases.length} cases generated`);

  const bookingsBefore = await bookingsChecksum(reader!);
  const dataBefore = await dataSnapshot(reader!);
  assert.ok(bookingsBefore.rows > 1000);
  assert.equal(dataBefore.tasks.length, victimTasks.length);

  const failures: string[] = [];
  const perCategory = new Map<string, number>();
  for (const c of cases) {
    const res = await rawPost(server.mcpUrl, c.headers, c.body);
    const problem = c.check(res);
    if (problem) failures.push(`[${c.category}] ${c.name}: ${problem}`);
    perCategory.set(c.category, (perCategory.get(c.category) ?? 0) + 1);
  }
  assert.equal(
    failures.length,
    0,
    `${failures.length} of ${cases.length} requests were not refused as expected:\n${failures.join('\n')}`,
  );
  for (const category of [
    'malformed JSON',
    'wrong jsonrpc',
    'unknown method',
    'wrong type',
    'huge body',
    'deep nesting',
    'bad headers',
    'invalid arguments',
    'guessed task id',
    'foreign task id',
  ])
    assert.ok((perCategory.get(category) ?? 0) > 0, `no ${category} case`);

  // The server is still up and still serves its legitimate users.
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  const listed = await rpc(server.mcpUrl, 'tools/call', { name: 'list_rooms', arguments: {} }, { token: ATTACKER });
  assert.equal(listed.body.result.structuredContent.rooms.length, rooms.length);
  for (const id of victimTasks) {
    const { body } = await rpc(server.mcpUrl, 'tasks/get', { taskId: id }, { token: VICTIM });
    assert.equal(body.result.status, 'completed', 'the victim still sees its task, untouched');
  }

  // Nothing changed: not a booking, not a task, not an event, not an audit row.
  assert.deepEqual(await bookingsChecksum(reader!), bookingsBefore);
  assert.deepEqual(await dataSnapshot(reader!), dataBefore);
});
