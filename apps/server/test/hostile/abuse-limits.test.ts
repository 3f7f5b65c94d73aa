// Limits on creating tasks, per client principal, on the requests one holds open at once, and the
// poll interval growing with the queue.
// WORKERS=0 keeps every task queued (working), so the counts are exact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { newTaskId } from '@reflow/tasks';
import { reflowOn, rpc, startTestServer, taskCount, toolText } from '../helpers/test-server.ts';
import { mcpBody, mcpHeaders, parseMcpBody } from '../../harness/mcp-wire.ts';
import { legacyMcpBody, legacyMcpHeaders } from '../../harness/mcp-wire-2025.ts';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const OPS = 'ops-token-0123456789abcdef';
const AUTH_TOKENS = `alice:client:${ALICE},bob:client:${BOB}`;
const create = (url: string, token: string, day: number, tasks = true) =>
  rpc(url, 'tools/call', { name: 'reflow_month', arguments: reflowOn(day) }, { token, tasks });

test('a principal over its creation rate is refused with a clear error; another principal is not affected', async (t) => {
  const server = await startTestServer({
    AUTH_TOKENS,
    WORKERS: '0',
    TASK_RATE_BURST: '3',
    TASK_RATE_PER_MINUTE: '1',
    MAX_ACTIVE_TASKS_PER_PRINCIPAL: '100',
  });
  t.after(() => server.close());
  for (let day = 1; day <= 3; day++)
    assert.equal((await create(server.mcpUrl, ALICE, day)).body.result.resultType, 'task');
  const refused = await create(server.mcpUrl, ALICE, 4);
  assert.equal(refused.body.result.isError, true);
  assert.match(
    toolText(refused.body),
    /^RFL_RATE_LIMITED: alice is creating tasks too fast \(at most 1 a minute, bursts of 3\); retry in \d+ s$/,
  );
  // The synchronous path is limited the same way.
  const refusedSync = await create(server.mcpUrl, ALICE, 5, false);
  assert.match(toolText(refusedSync.body), /RFL_RATE_LIMITED/);
  assert.equal((await create(server.mcpUrl, BOB, 1)).body.result.resultType, 'task', 'bob has his own bucket');
  const { store } = server.services;
  const owners = {
    all: await taskCount(store),
    alice: (await store.tasks.listForOwner('alice', 100)).length,
    bob: (await store.tasks.listForOwner('bob', 100)).length,
  };
  assert.deepEqual(owners, { all: 4, alice: 3, bob: 1 }, 'refused calls wrote nothing');
});

test('a cap on unfinished tasks per principal, counted in the database; cancelling one makes room; operators are not limited', async (t) => {
  const server = await startTestServer({
    AUTH_TOKENS: `${AUTH_TOKENS},ops:operator:${OPS}`,
    WORKERS: '0',
    MAX_ACTIVE_TASKS_PER_PRINCIPAL: '2',
    TASK_RATE_BURST: '100',
  });
  t.after(() => server.close());
  const first = (await create(server.mcpUrl, ALICE, 1)).body.result.taskId;
  await create(server.mcpUrl, ALICE, 2);
  const refused = await create(server.mcpUrl, ALICE, 3);
  assert.match(
    toolText(refused.body),
    /^RFL_TOO_MANY_TASKS: alice already has 2 unfinished tasks \(the limit is 2\); wait for one to finish or cancel one$/,
  );
  // At the cap, repeating a request that is already running is not new work: it returns that task.
  assert.equal((await create(server.mcpUrl, ALICE, 1)).body.result.taskId, first);
  assert.equal((await create(server.mcpUrl, BOB, 1)).body.result.resultType, 'task', 'the cap is per principal');
  await rpc(server.mcpUrl, 'tasks/cancel', { taskId: first }, { token: ALICE });
  assert.equal((await create(server.mcpUrl, ALICE, 3)).body.result.resultType, 'task');
  for (let day = 1; day <= 4; day++)
    assert.equal((await create(server.mcpUrl, OPS, day)).body.result.resultType, 'task', 'operators are trusted staff');
});

test('pollIntervalMs grows with the queue: each task queued behind others is told to poll less often', async (t) => {
  const server = await startTestServer({ WORKERS: '0', POLL_INTERVAL_MS: '100' });
  t.after(() => server.close());
  const intervals: number[] = [];
  for (let day = 1; day <= 6; day++) intervals.push((await create(server.mcpUrl, '', day)).body.result.pollIntervalMs);
  // One slot (WORKERS=0 counts as one), so the n-th queued task waits n rounds.
  assert.deepEqual(intervals, [100, 200, 300, 400, 500, 600]);
});

test('task ids carry at least 128 random bits', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const wire: string[] = [];
  for (let day = 1; day <= 20; day++) wire.push((await create(server.mcpUrl, '', day)).body.result.taskId);
  const ids = [...wire, ...Array.from({ length: 5000 }, () => newTaskId())];
  for (const id of wire) assert.match(id, /^tsk_[0-9a-f]{32,}$/);
  assert.equal(new Set(ids).size, ids.length, 'no repeats');
  // Every hex position varies (no fixed or counter part) and the digits are evenly spread.
  const bodies = ids.map((id) => id.slice(4));
  const length = bodies[0].length;
  const varying = Array.from({ length }, (_, i) => new Set(bodies.map((b) => b[i])).size === 16).filter(Boolean).length;
  assert.ok(varying * 4 >= 128, `${varying} random hex digits = ${varying * 4} bits`);
  const counts = new Map<string, number>();
  for (const b of bodies) for (const ch of b) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  const expected = (bodies.length * length) / 16;
  for (const [digit, n] of counts)
    assert.ok(Math.abs(n - expected) / expected < 0.05, `digit ${digit}: ${n} vs ${expected}`);
});

/**
 * A 2025-11-25 request of `token` as a raw HTTP exchange, and whether the server still holds it
 * open after `holdMs` ('held') or has answered it. A held one is left running: the test ends it by
 * cancelling its task (a dropped connection would work too).
 */
async function legacyRequest(
  url: string,
  token: string,
  method: string,
  params: Record<string, unknown>,
  holdMs = 800,
): Promise<{ held: true; answer: Promise<unknown> } | { held: false; headers: Headers; body: any }> {
  const answer = fetch(url, {
    method: 'POST',
    headers: { ...legacyMcpHeaders(), authorization: `Bearer ${token}` },
    body: legacyMcpBody(method, params),
  }).then(async (res) => ({ headers: res.headers, body: parseMcpBody(await res.text()) }));
  const first = await Promise.race([answer, sleep(holdMs).then(() => 'held' as const)]);
  return first === 'held' ? { held: true, answer } : { held: false, ...first };
}

test('a client principal holds at most MAX_HELD_REQUESTS_PER_PRINCIPAL requests open: waits, then sessions, are refused over it; others and operators are not', async (t) => {
  const server = await startTestServer({
    AUTH_TOKENS: `${AUTH_TOKENS},ops:operator:${OPS}`,
    WORKERS: '0',
    MAX_HELD_REQUESTS_PER_PRINCIPAL: '2',
    MAX_ACTIVE_TASKS_PER_PRINCIPAL: '100',
    TASK_RATE_BURST: '100',
  });
  const url = server.mcpUrl;
  // Tasks that stay working (no workers): a tasks/result on one waits until the task is cancelled.
  const aliceTask = (await create(url, ALICE, 1)).body.result.taskId;
  const bobTask = (await create(url, BOB, 2)).body.result.taskId;
  const opsTask = (await create(url, OPS, 3)).body.result.taskId;
  const waits: Promise<unknown>[] = [];
  const owned: [string, string][] = [
    [aliceTask, ALICE],
    [bobTask, BOB],
    [opsTask, OPS],
  ];
  // A listen held open (were the cap to fail) is dropped.
  const stopListening = new AbortController();
  // Every wait still open ends with its task, then the server closes (whatever the test found).
  t.after(async () => {
    stopListening.abort();
    for (const [taskId, token] of owned) await rpc(url, 'tasks/cancel', { taskId }, { token });
    await Promise.all(waits);
    await server.close();
  });
  const expectHeld = async (token: string, taskId: string, what: string) => {
    const asked = await legacyRequest(url, token, 'tasks/result', { taskId });
    assert.equal(asked.held, true, what);
    waits.push(asked.answer);
  };
  await expectHeld(ALICE, aliceTask, 'her first wait');
  await expectHeld(ALICE, aliceTask, 'her second wait');
  const third = await legacyRequest(url, ALICE, 'tasks/result', { taskId: aliceTask });
  assert.equal(third.held, false, 'a third wait is refused');
  assert.equal(third.body.error.data.code, 'RFL_TOO_MANY_HELD', JSON.stringify(third.body));
  assert.match(third.body.error.message, /already holds 2 requests open/);

  // A synchronous reflow_month would wait too: refused before it creates anything.
  const before = await taskCount(server.services.store);
  const sync = await create(url, ALICE, 4, false);
  assert.equal(sync.body.result.isError, true);
  assert.match(toolText(sync.body), /^RFL_TOO_MANY_HELD: This principal already holds 2 requests open/);
  assert.equal(await taskCount(server.services.store), before, 'the refused call created nothing');
  // A 2025-11-25 session is one more held request: its initialize is served without a session.
  const init = await legacyRequest(url, ALICE, 'initialize', {
    protocolVersion: '2025-11-25',
    capabilities: {},
    clientInfo: { name: 'over-the-cap', version: '0' },
  });
  assert.equal(init.held, false);
  assert.equal(init.headers.get('mcp-session-id'), null, 'no session over the cap');

  // A subscriptions/listen stream is one more: refused (a stream held open instead fails here).
  const listening = fetch(url, {
    method: 'POST',
    headers: { ...mcpHeaders('subscriptions/listen'), authorization: `Bearer ${ALICE}` },
    body: mcpBody('subscriptions/listen', { notifications: { taskIds: [aliceTask] } }, { tasks: true }),
    signal: stopListening.signal,
  }).then(async (res) => parseMcpBody(await res.text()));
  waits.push(listening.catch(() => undefined));
  const listened = await Promise.race([listening, sleep(2_000).then(() => undefined)]);
  assert.equal(listened?.error?.code, -32603, 'the listen is refused, not held open');
  assert.equal(listened.error.data.code, 'RFL_TOO_MANY_HELD');

  // Another client and an operator are not held back by alice.
  await expectHeld(BOB, bobTask, 'bob has his own cap');
  for (let i = 0; i < 3; i++) await expectHeld(OPS, opsTask, 'operators are not limited');

  // Her waits end with her task (answered: it was cancelled), and are given back.
  assert.equal((await rpc(url, 'tasks/cancel', { taskId: aliceTask }, { token: ALICE })).status, 200);
  await Promise.all(waits.splice(0, 2));
  const aliceNext = (await create(url, ALICE, 5)).body.result.taskId;
  owned.push([aliceNext, ALICE]);
  await expectHeld(ALICE, aliceNext, 'a wait is accepted again once her waits ended');
});
