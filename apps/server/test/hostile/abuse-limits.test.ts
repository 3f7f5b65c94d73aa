// Limits on creating tasks, per client principal, and the poll interval growing with the queue.
// WORKERS=0 keeps every task queued (working), so the counts are exact.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newTaskId } from '@reflow/tasks';
import { reflowOn, rpc, startTestServer, taskCount, toolText } from '../helpers/test-server.ts';

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
