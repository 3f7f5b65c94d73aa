// Three nodes on one PostgreSQL database where only B has workers (WORKERS=0 on A and C), so B runs
// every attempt: a task created on A, polled on B and cancelled through C stops B's worker within
// the cancel grace period and applies nothing; an approval answer sent to a node other than the one
// that parked the task resumes it; and a task created on A is claimed by idle B within about 100 ms
// through LISTEN/NOTIFY, well before the sweep would find it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ELICITING_CLIENT } from '../helpers/approval-helper.ts';
import { ClusterNode, freePort, rows, seededClusterDatabase, type ClusterDatabase } from './cluster-helper.ts';
import { rpc } from '../helpers/test-server.ts';
import { SLOW_REFLOW, slowMonthSeedFile } from '../helpers/slow-month.ts';

/** reflowTaskHandler's default: how long a cancelled solve may take to notice before its thread is terminated. */
const CANCEL_GRACE_MS = 2_000;
/** The engine's sweep, the fallback when a notification is lost. */
const SWEEP_INTERVAL_MS = 5_000;

let db: ClusterDatabase;
let A: ClusterNode, B: ClusterNode, C: ClusterNode;
/** Undone in reverse order after the tests, also when the start failed half-way. */
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  // The slow month: the cancel must reach B while it still solves (the demo month's longest reflow
  // solves in 0.6 s, which a loaded machine can let run out before the cancel lands).
  db = await seededClusterDatabase(slowMonthSeedFile());
  cleanups.push(() => db.drop());
  const env = (workers: number) => ({ WORKERS: String(workers) });
  A = new ClusterNode('A', await freePort(), db.url, env(0));
  B = new ClusterNode('B', await freePort(), db.url, env(1));
  C = new ClusterNode('C', await freePort(), db.url, env(0));
  cleanups.push(async () => {
    for (const node of [A, B, C]) await node.kill();
  });
  await Promise.all([A, B, C].map((node) => node.start()));
});
after(async () => {
  for (const undo of cleanups.reverse()) await undo();
});

async function create(node: ClusterNode, args: Record<string, unknown>): Promise<string> {
  const { body } = await rpc(
    node.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: args },
    {
      capabilities: ELICITING_CLIENT,
    },
  );
  assert.equal(body.result?.resultType, 'task', JSON.stringify(body));
  return body.result.taskId as string;
}

async function get(node: ClusterNode, taskId: string): Promise<any> {
  const { body } = await rpc(node.mcpUrl, 'tasks/get', { taskId }, { capabilities: ELICITING_CLIENT });
  assert.equal(body.result?.taskId, taskId, JSON.stringify(body));
  return body.result;
}

/** Polls `probe` until it returns a value; fails naming `what` at the deadline. */
async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000, everyMs = 20) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/** B's attempts running and its worker pool's load, from its own /metrics. */
async function bLoad(): Promise<{ attempts: number; utilisation: number }> {
  const text = await (await fetch(`${B.baseUrl}/metrics`)).text();
  // A gauge may carry labels (`reflow_task_attempts_running{node="…"}`): B serves only its own.
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return { attempts: value('reflow_task_attempts_running'), utilisation: value('reflow_worker_pool_utilisation') };
}

const bookingsNow = async () =>
  JSON.stringify(await rows(db, 'SELECT id, room_id, start_at, end_at, status, version FROM bookings ORDER BY id'));

const eventsOf = (taskId: string) =>
  rows<{ kind: string; at: number; attempt: number; data: { by?: string } | null }>(
    db,
    'SELECT kind, at, attempt, data FROM task_events WHERE task_id = $1 ORDER BY id',
    [taskId],
  );

test('created on A, polled on B, cancelled through C while B solves: cancelled, nothing applied, B stops within the grace period', async () => {
  const before = await bookingsNow();
  const taskId = await create(A, SLOW_REFLOW);
  // B polls until its own worker is solving (past the snapshot: a solver progress report, or a busy pool).
  await until('B solving', async () => {
    const task = await get(B, taskId);
    assert.equal(task.status, 'working', JSON.stringify(task));
    const load = await bLoad();
    return load.utilisation > 0 ? load : undefined;
  });
  const claims = (await eventsOf(taskId)).filter((e) => e.kind === 'claimed');
  assert.equal(claims.length, 1);
  assert.match(claims[0].data!.by!, new RegExp(`:${B.process!.pid}$`), 'B (the only node with workers) runs it');

  const cancelAt = Date.now();
  const { body } = await rpc(C.mcpUrl, 'tasks/cancel', { taskId });
  assert.equal(body.error, undefined, JSON.stringify(body));
  const stopped = await until(
    "B's worker idle",
    async () => {
      const load = await bLoad();
      return load.attempts === 0 && load.utilisation === 0 ? Date.now() - cancelAt : undefined;
    },
    30_000,
    10,
  );
  // A moment more, so an apply that would come late has had its chance.
  await sleep(500);
  for (const node of [A, B, C])
    assert.equal((await get(node, taskId)).status, 'cancelled', `cancelled, as ${node.name} reads it`);
  assert.equal(await bookingsNow(), before, 'no booking changed');
  const audit = await rows(
    db,
    'SELECT task_id FROM reflow_moves WHERE task_id = $1 UNION ALL SELECT task_id FROM reflow_unresolved WHERE task_id = $1',
    [taskId],
  );
  assert.deepEqual(audit, [], 'no audit rows');
  const kinds = (await eventsOf(taskId)).map((e) => e.kind);
  assert.ok(!kinds.includes('completed') && kinds.at(-1) === 'cancelled', kinds.join(' '));
  assert.match(B.process!.output(), new RegExp(`"taskId":"${taskId}".*"msg":"task attempt (discarded|released)"`));
  console.log(
    `cross-node cancel: B's worker idle ${stopped} ms after the cancel reached C (grace ${CANCEL_GRACE_MS} ms)`,
  );
  assert.ok(stopped < CANCEL_GRACE_MS + 1_000, `B's worker stopped ${stopped} ms after the cancel`);
});

test('an approval answer sent to a node other than the one that parked the task resumes it', async () => {
  const taskId = await create(A, { ...SLOW_REFLOW, confirm: true });
  const parked = await until('parked on B', async () => {
    const task = await get(C, taskId);
    return task.status === 'input_required' ? task : undefined;
  });
  const parker = (await eventsOf(taskId)).find((e) => e.kind === 'claimed')!.data!.by!;
  assert.match(parker, new RegExp(`:${B.process!.pid}$`), 'B parked it');
  const [key] = Object.keys(parked.inputRequests as Record<string, unknown>);
  const answeredAt = Date.now();
  const { body } = await rpc(
    C.mcpUrl,
    'tasks/update',
    { taskId, inputResponses: { [key]: { action: 'accept', content: { apply: true } } } },
    { capabilities: ELICITING_CLIENT },
  );
  assert.equal(body.result?.resultType, 'complete', JSON.stringify(body));
  const resumedIn = await until('resumed', async () => {
    const claims = (await eventsOf(taskId)).filter((e) => e.kind === 'claimed');
    return claims.length === 2 ? Date.now() - answeredAt : undefined;
  });
  const done = await until('completed', async () => {
    const task = await get(A, taskId);
    return ['completed', 'failed', 'cancelled'].includes(task.status) ? task : undefined;
  });
  assert.equal(done.status, 'completed', JSON.stringify(done));
  assert.deepEqual([done.result.structuredContent.applied, done.result.structuredContent.approval], [true, 'accepted']);
  const moves = await rows(db, 'SELECT 1 FROM reflow_moves WHERE task_id = $1', [taskId]);
  assert.equal(moves.length, done.result.structuredContent.moved);
  console.log(
    `answer through C to a task B parked: claimed again ${resumedIn} ms later (the sweep runs every ${SWEEP_INTERVAL_MS} ms)`,
  );
  assert.ok(resumedIn < SWEEP_INTERVAL_MS, 'resumed by the answer signal, not the sweep');
});

test('a task created on A (no workers) is claimed by idle B within about 100 ms, by LISTEN/NOTIFY', async () => {
  const delays: number[] = [];
  for (let i = 0; i < 10; i++) {
    const day = String(1 + i * 2).padStart(2, '0');
    const taskId = await create(A, {
      month: SLOW_REFLOW.month,
      offline_rooms: ['studio-a'],
      from: `${SLOW_REFLOW.month}-${day}`,
      to: `${SLOW_REFLOW.month}-${day}`,
      dry_run: true,
    });
    const done = await until('finished', async () => {
      const task = await get(A, taskId);
      return ['completed', 'failed', 'cancelled'].includes(task.status) ? task : undefined;
    });
    assert.equal(done.status, 'completed');
    // Both times on the database's clock: the create's commit and B's claim.
    const events = await eventsOf(taskId);
    const created = events.find((e) => e.kind === 'created')!;
    const claimed = events.find((e) => e.kind === 'claimed')!;
    assert.match(claimed.data!.by!, new RegExp(`:${B.process!.pid}$`));
    delays.push(claimed.at - created.at);
    // B idle again (its pool too) before the next create.
    await until('B idle', async () => ((await bLoad()).attempts === 0 ? true : undefined));
  }
  const sorted = [...delays].sort((a, b) => a - b);
  const p50 = sorted[Math.floor(sorted.length / 2)];
  console.log(
    `create on A -> claim on idle B: p50 ${p50} ms, max ${sorted.at(-1)} ms over ${delays.length} creates (${delays.join(', ')})`,
  );
  assert.ok(
    p50 < 1_000,
    `p50 ${p50} ms: a notification was lost, and the sweep (every ${SWEEP_INTERVAL_MS} ms) found the task`,
  );
});
