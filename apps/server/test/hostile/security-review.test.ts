// The outside security review (issue 28), row by row, end to end over real sockets on this run's
// store: each finding is reproduced the way the reviewer found it, and wherever the server must
// refuse, a checksum of every booking (and the task count) shows that nothing changed.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ICAL from 'ical.js';
import {
  openTestStore,
  rpc,
  startTestServer,
  taskCount,
  waitForTaskStatus,
  type TestServer,
} from '../helpers/test-server.ts';
import { ELICITING_CLIENT } from '../helpers/approval-helper.ts';
import {
  AGENT,
  api,
  APPROVAL_ENV,
  bookingsChecksum,
  OPS,
  REFLOW_ARGS,
  startReflowAs,
  waitUntilAwaitingOperator,
} from '../helpers/operator-approval-helper.ts';
import { writeBehindTheServer } from '../helpers/operator-helper.ts';
import { testSql } from '../../../../scripts/test-sql.mjs';

const METRICS_TOKEN = 'scrape-token-0123456789abcdef';
let s: TestServer;
before(async () => {
  s = await startTestServer({ ...APPROVAL_ENV, METRICS_TOKEN });
});
after(async () => s.close());

/** Two days of studio-b going offline: each finding below uses days of its own, so they never overlap. */
const days = (from: number, to = from) => ({
  ...REFLOW_ARGS,
  from: `2026-09-${String(from).padStart(2, '0')}`,
  to: `2026-09-${String(to).padStart(2, '0')}`,
});
const finished = (taskId: string, token = OPS) =>
  waitForTaskStatus(s.mcpUrl, taskId, ['completed', 'failed', 'cancelled'], 60_000, { token });

/** The checksum of every booking and how many tasks exist: equal before and after means a refusal changed nothing. */
const state = async (server = s) =>
  `${await bookingsChecksum(server.databasePath)} ${await taskCount(server.services.store)}`;

/** An operator's reflow from the console: it applies at once (an operator never waits for approval). */
async function operatorReflow(args: Record<string, unknown>) {
  const started = await api(s.url, 'POST', '/api/reflows', args);
  assert.equal(started.status, 202, JSON.stringify(started.body));
  const done = await finished(started.body.taskId);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  return { taskId: started.body.taskId as string, result: done.result.structuredContent };
}

/** A GET over node:http, which (unlike fetch) sends whatever Host header it is given. */
function rawGet(url: string, headers: Record<string, string> = {}) {
  const target = new URL(url);
  return new Promise<{ status: number; headers: Record<string, unknown>; text: string }>((resolve, reject) => {
    request({ hostname: target.hostname, port: target.port, path: target.pathname + target.search, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
      );
    })
      .on('error', reject)
      .end();
  });
}

// OWASP's CSV-injection corpus: what a spreadsheet would evaluate when a cell starts with it.
const FORMULAS = [
  '=HYPERLINK("http://x","click")',
  "+SUM(1+1)*cmd|' /C calc'!A0",
  "@SUM(1+1)*cmd|' /C calc'!A0",
  "-2+3+cmd|' /C calc'!A0",
  '\t=1+1',
  '\r=1+1',
  '\n=1+1',
  '＝1+1',
];
const EVALUATED = /^[=+\-@\t\r\n＝＋－＠]/;
const INJECTED_SITE = 'Riverside\r\nEND:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:injected@evil\r\nSUMMARY:x\r\nEND:VEVENT';

test('1 and 3: hostile titles, customers, room and site names reach changes.csv neutralised and changes.ics escaped', async () => {
  const store = await openTestStore(s.databasePath);
  try {
    const sql = await testSql(store);
    await sql.run('UPDATE site SET name = ?', INJECTED_SITE);
    await sql.run("UPDATE rooms SET name = '=cmd|' || id");
    const ids = (
      await sql.all(
        "SELECT id FROM bookings WHERE room_id = 'studio-b' AND start_at >= ? AND start_at < ? ORDER BY id",
        Date.parse('2026-09-01T00:00:00Z'),
        Date.parse('2026-09-03T00:00:00Z'),
      )
    ).map((r) => String(r.id));
    assert.ok(ids.length >= FORMULAS.length, `enough bookings to carry the corpus (${ids.length})`);
    for (const [i, id] of ids.entries())
      await sql.run(
        'UPDATE bookings SET title = ?, customer = ? WHERE id = ?',
        FORMULAS[i % FORMULAS.length],
        FORMULAS[(i + 1) % FORMULAS.length],
        id,
      );
  } finally {
    await store.close();
  }
  const { taskId, result } = await operatorReflow(days(1, 2));
  assert.ok(result.moves.length > 0);
  const download = (format: string) =>
    fetch(`${s.url}/api/tasks/${taskId}/changes.${format}`, { headers: { authorization: `Bearer ${OPS}` } }).then((r) =>
      r.text(),
    );

  const rows: Record<string, string>[] = parse(await download('csv'), { columns: true });
  assert.equal(rows.length, result.moves.length + result.unresolvedBookings.length);
  for (const row of rows) {
    for (const [column, cell] of Object.entries(row))
      if (column !== 'shift_minutes') assert.doesNotMatch(cell, EVALUATED, `${column} of ${row.booking}: ${cell}`);
    assert.match(row.shift_minutes, /^(-?\d+)?$/, 'a shift stays a number, negative or not');
    if (FORMULAS.includes(row.title.slice(1))) assert.equal(row.title[0], "'", 'a formula title is kept, quoted');
  }
  assert.ok(
    rows.some((r) => r.title === `'${FORMULAS[0]}`),
    'the HYPERLINK title is there, as text',
  );
  assert.ok(rows.some((r) => r.new_room.startsWith("'=cmd|")));

  const ics = await download('ics');
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const events = calendar.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
  assert.equal(events.length, result.moves.length, 'one event per move, none injected');
  assert.equal(ics.match(/^BEGIN:VEVENT/gm)?.length, result.moves.length);
  assert.ok(!events.some((e) => e.uid === 'injected@evil'));
  // ical.js leaves an X- property's text escaped: the line breaks are there as \n, inside one value.
  assert.equal(
    calendar.getFirstPropertyValue('x-wr-calname'),
    `${INJECTED_SITE.replaceAll('\r\n', '\\n')}: bookings moved by reflow ${taskId}`,
    'the site name is one escaped value',
  );
});

test("2: a client's revert under APPROVAL=operator waits for an operator; nothing moves until approved", async () => {
  const reflowId = await startReflowAs(s.mcpUrl, AGENT, days(3, 4));
  await waitUntilAwaitingOperator(s.mcpUrl, reflowId);
  assert.equal((await api(s.url, 'POST', `/api/tasks/${reflowId}/approve`, {})).status, 200);
  const reflow = await finished(reflowId, AGENT);
  assert.equal(reflow.result.structuredContent.applied, true);

  const before = await bookingsChecksum(s.databasePath);
  const { body } = await rpc(
    s.mcpUrl,
    'tools/call',
    { name: 'revert_reflow', arguments: { taskId: reflowId } },
    { token: AGENT },
  );
  assert.equal(body.result?.resultType, 'task', JSON.stringify(body));
  const revertId = body.result.taskId;
  const waiting = await waitUntilAwaitingOperator(s.mcpUrl, revertId);
  assert.match(waiting.statusMessage, new RegExp(`revert reflow ${reflowId}`));
  assert.equal(await bookingsChecksum(s.databasePath), before, 'nothing is put back while it waits');
  const listed = await api(s.url, 'GET', '/api/tasks?awaiting=operator');
  assert.ok(listed.body.tasks.some((t: any) => t.taskId === revertId && t.awaitingApproval));

  const approved = await api(s.url, 'POST', `/api/tasks/${revertId}/approve`, {});
  assert.equal(approved.status, 200, JSON.stringify(approved.body));
  const done = await finished(revertId, AGENT);
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.ok(done.result.structuredContent.restored > 0);
  assert.equal(done.result.structuredContent.operatorDecision.by, 'ops');
  assert.notEqual(await bookingsChecksum(s.databasePath), before);
});

test('2: a rejected revert puts nothing back and leaves the reflow revertible', async () => {
  const reflowId = await startReflowAs(s.mcpUrl, AGENT, days(5));
  await waitUntilAwaitingOperator(s.mcpUrl, reflowId);
  await api(s.url, 'POST', `/api/tasks/${reflowId}/approve`, {});
  await finished(reflowId, AGENT);
  const before = await bookingsChecksum(s.databasePath);
  const revert = async () =>
    (await rpc(s.mcpUrl, 'tools/call', { name: 'revert_reflow', arguments: { taskId: reflowId } }, { token: AGENT }))
      .body.result.taskId as string;
  const first = await revert();
  await waitUntilAwaitingOperator(s.mcpUrl, first);
  const rejected = await api(s.url, 'POST', `/api/tasks/${first}/reject`, { reason: 'studio-b is still down' });
  assert.equal(rejected.status, 200, JSON.stringify(rejected.body));
  const done = await finished(first, AGENT);
  assert.equal(done.status, 'failed');
  assert.match(done.statusMessage, /RFL_REVERT_REJECTED: Rejected by operator ops: studio-b is still down/);
  assert.equal(await bookingsChecksum(s.databasePath), before);
  const second = await revert();
  assert.notEqual(second, first, 'asked again after a rejection: a new revert');
  await waitUntilAwaitingOperator(s.mcpUrl, second);
  await api(s.url, 'POST', `/api/tasks/${second}/reject`, { reason: 'not yet' });
  await finished(second, AGENT);
});

test('4: /api takes JSON as sent: a wrong type or an unknown field is a 400 naming it, and nothing changes', async () => {
  const waiting = await startReflowAs(s.mcpUrl, AGENT, days(8));
  await waitUntilAwaitingOperator(s.mcpUrl, waiting);
  const was = await state();
  const cases: [string, string, unknown, RegExp][] = [
    ['POST', '/api/reflows', { ...days(9), dry_run: null }, /body\/dry_run must be boolean/],
    ['POST', '/api/reflows', { ...days(9), offline_rooms: 'studio-b' }, /body\/offline_rooms must be array/],
    ['POST', '/api/reflows', { ...days(9), by: 'mallory' }, /body has an unknown field "by"/],
    ['POST', `/api/tasks/${waiting}/reject`, { reason: 123 }, /body\/reason must be string/],
    ['POST', `/api/tasks/${waiting}/approve`, { reason: 'ok', by: 'mallory' }, /body has an unknown field "by"/],
    ['POST', `/api/tasks/${waiting}/cancel`, { force: true }, /body has an unknown field "force"/],
    ['POST', `/api/tasks/${waiting}/revert`, { taskId: 'x' }, /body has an unknown field "taskId"/],
    ['POST', `/api/tasks/${waiting}/apply-plan`, [], /body must be object,null/],
  ];
  for (const [method, path, body, message] of cases) {
    const res = await api(s.url, method as 'POST', path, body);
    assert.equal(res.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, 'RFL_BAD_REQUEST');
    assert.match(res.body.error, message);
  }
  assert.equal(await state(), was, 'every refusal changed nothing');
  // The same rule on MCP tool arguments: no coercion there either.
  const mcp = await rpc(
    s.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: { ...days(9), dry_run: null } },
    {
      token: AGENT,
    },
  );
  assert.ok(mcp.body.error || mcp.body.result?.isError, JSON.stringify(mcp.body));
  assert.equal(await state(), was);
  // The query string is text: a number there is still read as one.
  assert.equal((await api(s.url, 'GET', '/api/tasks?limit=2')).body.tasks.length, 2);
  await api(s.url, 'POST', `/api/tasks/${waiting}/reject`, { reason: 'test over' });
});

test('10: the console cannot start a reflow that asks a confirm question nobody there could answer', async () => {
  const was = await state();
  const res = await api(s.url, 'POST', '/api/reflows', { ...days(9), confirm: true });
  assert.equal(res.status, 400, JSON.stringify(res.body));
  assert.equal(res.body.code, 'RFL_BAD_REQUEST');
  assert.match(res.body.error, /body has an unknown field "confirm"/);
  assert.equal(await state(), was);
});

test('5: the console and the docs page may not be framed or sniffed', async () => {
  for (const path of ['/ui/', '/ui/js/app.js', '/docs/static/index.html']) {
    const res = await fetch(`${s.url}${path}`);
    assert.equal(res.status, 200, path);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff', path);
    assert.equal(res.headers.get('x-frame-options'), 'DENY', path);
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer', path);
  }
  for (const path of ['/ui/', '/docs/static/index.html']) {
    const csp = (await fetch(`${s.url}${path}`)).headers.get('content-security-policy') ?? '';
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.doesNotMatch(csp, /upgrade-insecure-requests/, path);
  }
  const ui = (await fetch(`${s.url}/ui/`)).headers.get('content-security-policy') ?? '';
  assert.match(ui, /script-src 'self'(;|$)/);
  assert.doesNotMatch(ui, /unsafe-inline/);
});

test("5: a percent-encoded path to the console gets the console's policy: the header follows the route Fastify matched", async () => {
  const plain = await fetch(`${s.url}/ui/`);
  const policy = plain.headers.get('content-security-policy');
  assert.match(policy ?? '', /frame-ancestors 'none'/);
  // Fastify routes /%75i/ to the console's /ui/* route; whatever that route answers (@fastify/static
  // 10 matches its prefix on the raw URL and says 404), the answer carries the console's policy.
  for (const path of ['/%75i/', '/%75i/index.html', '/%75i/js/app.js']) {
    const encoded = await fetch(`${s.url}${path}`);
    assert.equal(encoded.headers.get('content-security-policy'), policy, path);
    assert.equal(encoded.headers.get('x-frame-options'), 'DENY', path);
  }
});

test('6: /metrics answers only a Host the server accepts, and with METRICS_TOKEN only the scraper', async () => {
  const metrics = `${s.url}/metrics`;
  const rebound = await rawGet(metrics, { host: 'evil.example', authorization: `Bearer ${METRICS_TOKEN}` });
  assert.equal(rebound.status, 403, rebound.text.slice(0, 200));
  assert.doesNotMatch(rebound.text, /reflow_node_info/);
  const anonymous = await rawGet(metrics);
  assert.equal(anonymous.status, 401);
  assert.doesNotMatch(anonymous.text, /reflow_node_info/);
  assert.equal((await rawGet(metrics, { authorization: 'Bearer wrong-token-0123456789abcdef' })).status, 401);
  const scraped = await rawGet(metrics, { authorization: `Bearer ${METRICS_TOKEN}` });
  assert.equal(scraped.status, 200);
  assert.match(scraped.text, /reflow_node_info/);
});

test('7: /mcp and /api are rate limited per principal, and per address without a valid token; a slow request is cut off', async (t) => {
  const limited = await startTestServer({
    ...APPROVAL_ENV,
    HTTP_RATE_LIMIT_PER_MINUTE: '5',
    REQUEST_TIMEOUT_MS: '1000',
  });
  t.after(() => limited.close());
  const nodes = (token: string) =>
    fetch(`${limited.url}/api/nodes`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
      status: r.status,
      retryAfter: r.headers.get('retry-after'),
      body: (await r.json()) as { code?: string; error: string },
    }));
  for (let i = 0; i < 5; i++) assert.equal((await nodes(OPS)).status, 200);
  const refused = await nodes(OPS);
  assert.equal(refused.status, 429);
  assert.equal(refused.body.code, 'RFL_HTTP_RATE_LIMITED');
  assert.match(refused.retryAfter ?? '', /^\d+$/);
  assert.match(refused.body.error, /principal ops sent more than 5 requests in a minute; retry in \d+ s/);
  // Another principal has its own allowance.
  assert.equal((await rpc(limited.mcpUrl, 'tools/list', {}, { token: AGENT })).status, 200);
  for (let i = 0; i < 5; i++) assert.equal((await nodes('guessed-token-0123456789abcdef')).status, 401);
  const guessing = await nodes('guessed-token-0123456789abcdef');
  assert.equal(guessing.status, 429);
  assert.match(guessing.body.error, /^address /);
  // Probes and the console are not limited.
  assert.equal((await fetch(`${limited.url}/healthz`)).status, 200);

  // A request whose headers never end (slowloris) is answered 408 and closed; Node looks every 30 s.
  const closed = await new Promise<string>((resolve, reject) => {
    const socket = connect(Number(new URL(limited.url).port), '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d.toString()));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
    socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n');
    setTimeout(() => reject(new Error('the slow request was still open after 45 s')), 45_000).unref();
  });
  assert.match(closed, /^HTTP\/1\.1 408/);
});

test('7: a percent-encoded /api or /mcp path is counted like the plain one, as is a 404 under /api', async (t) => {
  const AUDIT = 'audit-token-0123456789abcdef';
  const limited = await startTestServer({
    ...APPROVAL_ENV,
    AUTH_TOKENS: `${APPROVAL_ENV.AUTH_TOKENS},audit:operator:${AUDIT}`,
    HTTP_RATE_LIMIT_PER_MINUTE: '5',
  });
  t.after(() => limited.close());
  const get = (path: string, token: string) =>
    fetch(`${limited.url}${path}`, { headers: { authorization: `Bearer ${token}` } }).then(async (r) => ({
      status: r.status,
      body: (await r.json()) as { code?: string; error: string },
    }));
  // Fastify decodes the path before routing: /%61pi/nodes is /api/nodes, and shares its count.
  for (const path of ['/api/nodes', '/%61pi/nodes', '/api/nodes', '/%61pi/nodes', '/%61pi/nodes'])
    assert.equal((await get(path, OPS)).status, 200, path);
  const refused = await get('/%61pi/nodes', OPS);
  assert.equal(refused.status, 429, JSON.stringify(refused.body));
  assert.equal(refused.body.code, 'RFL_HTTP_RATE_LIMITED');
  assert.match(refused.body.error, /^principal ops sent more than 5 requests/);
  assert.equal((await get('/api/nodes', OPS)).status, 429, 'the plain path is refused too');

  const encodedMcp = `${limited.url}/%6Dcp`;
  for (let i = 0; i < 5; i++) assert.equal((await rpc(encodedMcp, 'tools/list', {}, { token: AGENT })).status, 200);
  const mcpRefused = await rpc(encodedMcp, 'tools/list', {}, { token: AGENT });
  assert.equal(mcpRefused.status, 429, JSON.stringify(mcpRefused.body));
  assert.match(mcpRefused.body.error, /^principal agent sent more than 5 requests/);

  // No route matches, so no route pattern: the decoded path still counts it (by address, no valid token).
  const guessed = 'guessed-token-0123456789abcdef';
  for (let i = 0; i < 5; i++) assert.ok([401, 404].includes((await get('/%61pi/no-such-route', guessed)).status));
  const unmatched = await get('/%61pi/no-such-route', guessed);
  assert.equal(unmatched.status, 429, JSON.stringify(unmatched.body));
  assert.match(unmatched.body.error, /^address /);

  // Request targets fetch never sends, which Fastify routes to /mcp and /api/nodes all the same: a
  // fragment, the absolute form. Whatever each answers, it is counted.
  const { port } = new URL(limited.url);
  const sent = ([method, path]: [string, string]) =>
    new Promise<number>((resolve, reject) => {
      request({ method, hostname: '127.0.0.1', port, path, headers: { authorization: `Bearer ${AUDIT}` } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      })
        .on('error', reject)
        .end();
    });
  const odd: [string, string][] = [
    ['POST', '/mcp#x'],
    ['GET', `http://127.0.0.1:${port}/api/nodes`],
  ];
  for (let i = 0; i < 5; i++) assert.notEqual(await sent(odd[i % 2]), 429, odd[i % 2].join(' '));
  for (const target of odd) assert.equal(await sent(target), 429, target.join(' '));
});

test('2: a revert is new work: the creation limits apply to it', async (t) => {
  const capped = await startTestServer({ ...APPROVAL_ENV, MAX_ACTIVE_TASKS_PER_PRINCIPAL: '1' });
  t.after(() => capped.close());
  const applied = await startReflowAs(capped.mcpUrl, AGENT, days(10));
  await waitUntilAwaitingOperator(capped.mcpUrl, applied);
  await api(capped.url, 'POST', `/api/tasks/${applied}/approve`, {});
  await waitForTaskStatus(capped.mcpUrl, applied, ['completed'], 60_000, { token: AGENT });
  const open = await startReflowAs(capped.mcpUrl, AGENT, days(11));
  await waitUntilAwaitingOperator(capped.mcpUrl, open);
  const was = await state(capped);
  const { body } = await rpc(
    capped.mcpUrl,
    'tools/call',
    { name: 'revert_reflow', arguments: { taskId: applied } },
    {
      token: AGENT,
    },
  );
  assert.equal(body.result?.isError, true, JSON.stringify(body));
  assert.match(body.result.content[0].text, /^RFL_TOO_MANY_TASKS: agent already has 1 unfinished tasks/);
  assert.equal(await state(capped), was);
});

test('8: a revert leaves a booking whose end was extended since, and says so', async () => {
  const { taskId, result } = await operatorReflow(days(14, 15));
  // A moved booking with half an hour free after it: the database refuses an end extended onto the next booking.
  const store = s.services.store;
  let extended: string | undefined;
  for (const m of result.moves as { bookingId: string }[]) {
    const b = (await store.bookings.get(m.bookingId))!;
    if (!(await store.bookings.firstConflict(b.roomId, b.startAt, b.endAt + 1_800_000, [b.id]))) {
      extended = b.id;
      break;
    }
  }
  assert.ok(extended, 'a moved booking that can be extended');
  const others = result.moves.map((m: { bookingId: string }) => m.bookingId).filter((id: string) => id !== extended);
  assert.equal(
    await writeBehindTheServer(
      s.databasePath,
      'UPDATE bookings SET end_at = end_at + 1800000, version = version + 1 WHERE id = ?',
      extended,
    ),
    1,
  );
  const placed = await s.services.store.bookings.get(extended);
  const revert = await api(s.url, 'POST', `/api/tasks/${taskId}/revert`);
  assert.equal(revert.status, 202, JSON.stringify(revert.body));
  const done = await finished(revert.body.taskId);
  const r = done.result.structuredContent;
  assert.deepEqual(
    r.notRestoredBookings.map((u: any) => [u.bookingId, u.code]),
    [[extended, 'changed']],
  );
  assert.ok(r.restoredBookings.length >= others.length);
  const now = await s.services.store.bookings.get(extended);
  assert.deepEqual(
    [now?.roomId, now?.startAt, now?.endAt],
    [placed?.roomId, placed?.startAt, placed?.endAt],
    'left where the reflow put it, with the end its customer chose',
  );
});

test("9: an operator cannot answer a client's own confirm question over MCP", async () => {
  const { body } = await rpc(
    s.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: { ...days(16), confirm: true } },
    { token: AGENT, capabilities: ELICITING_CLIENT },
  );
  assert.equal(body.result?.resultType, 'task', JSON.stringify(body));
  const taskId = body.result.taskId;
  const parked = await waitForTaskStatus(s.mcpUrl, taskId, ['input_required', 'completed', 'failed'], 60_000, {
    token: AGENT,
  });
  assert.equal(parked.status, 'input_required');
  const [key] = Object.keys(parked.inputRequests);
  const was = await state();
  const answered = await rpc(
    s.mcpUrl,
    'tasks/update',
    { taskId, inputResponses: { [key]: { action: 'accept', content: { apply: true } } } },
    { token: OPS },
  );
  assert.equal(answered.body.error?.code, -32602, JSON.stringify(answered.body));
  assert.match(answered.body.error.message, /only its owner answers its questions/);
  const still = await rpc(s.mcpUrl, 'tasks/get', { taskId }, { token: AGENT });
  assert.equal(still.body.result.status, 'input_required');
  assert.equal(await state(), was);
  // The operator still sees it and may cancel it.
  assert.equal((await rpc(s.mcpUrl, 'tasks/get', { taskId }, { token: OPS })).body.result.status, 'input_required');
  assert.equal((await rpc(s.mcpUrl, 'tasks/cancel', { taskId }, { token: OPS })).body.error, undefined);
});

test('11: a second apply of one dry run says its bookings changed meanwhile, not that they need rebooking', async () => {
  const preview = await operatorReflow({ ...days(21, 22), dry_run: true });
  const apply = async () => {
    const res = await api(s.url, 'POST', `/api/tasks/${preview.taskId}/apply-plan`);
    assert.equal(res.status, 202, JSON.stringify(res.body));
    return finished(res.body.taskId);
  };
  const first = await apply();
  const moved = first.result.structuredContent.moved;
  assert.ok(moved > 0);
  const second = await apply();
  const sc = second.result.structuredContent;
  assert.equal(sc.moved, 0);
  assert.ok(sc.unresolvedBookings.filter((u: any) => u.code === 'changed').length >= moved);
  const changed = sc.unresolvedBookings.filter((u: any) => u.code === 'changed').length;
  assert.equal(
    second.statusMessage,
    `Moved 0 of ${sc.affected} bookings; ${sc.unresolved - changed} need rebooking; ${changed} changed meanwhile and left as they are`,
  );
  assert.match(second.result.content[0].text, new RegExp(`${changed} changed meanwhile and left as they are\\.`));
});
