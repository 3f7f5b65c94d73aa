// An attempt that meets its database away: the engine's store reaches PostgreSQL through a proxy the
// test cuts (open connections reset, new ones refused) and restores, while the test reads the rows
// through its own connection. An outage is never the task's failure: the work is written once the
// database is back, or the task is given back without spending an attempt, or (away for longer than
// the attempt waits) the claim is left to lapse, as a crash would leave it.
// PostgreSQL whatever REFLOW_TEST_STORE says: a SQLite file is never away.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { openPostgresStore, type PostgresStore, type TaskRow } from '@reflow/db';
import { createTestDatabase } from '../../../scripts/postgres-for-tests.mjs';
import { TaskEngine, WorkerPool, type RunContext, type TaskHandler } from '../src/index.ts';
import { cuttableProxy, type CuttableProxy } from '../../../scripts/cuttable-proxy.mjs';
import { recordingLogger, until, type LogLine } from './engine-helper.ts';

const LEASE_MS = 300;
/** Longer than two leases: the attempt's lease lapses while the database is away. */
const OUTAGE_MS = 650;

/** What each test opened, closed last-opened first after it (and after the file, should a test have thrown early). */
const cleanups: (() => Promise<void>)[] = [];
const cleanUp = async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
};
afterEach(cleanUp);
after(cleanUp);

/** Attempts that wait for the test to let them finish, each with what it was given. */
function heldAttempts(kind: string, finish: (ctx: RunContext) => Promise<void> = async () => {}) {
  const attempts: { ctx: RunContext; go: () => void }[] = [];
  const handler: TaskHandler<unknown> = {
    kind,
    async run(_input, ctx) {
      await new Promise<void>((resolve, reject) => {
        attempts.push({ ctx, go: resolve });
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      });
      await finish(ctx);
      return { status: 'completed', result: { attempt: ctx.attempt }, message: `attempt ${ctx.attempt} done` };
    },
  };
  return { handler, attempts };
}

/**
 * A started engine whose store goes through `proxy`, on a fresh database, and a store of the test's
 * own on the same database that the cut does not reach.
 */
async function engineBehindProxy(
  handler: TaskHandler<unknown>,
  options: { outageWaitMs?: number; maxAttempts?: number; sweepIntervalMs?: number; lockTimeoutMs?: number } = {},
) {
  const database = await createTestDatabase('reflow_outage');
  cleanups.push(() => database.drop());
  const proxy = await cuttableProxy(database.url);
  cleanups.push(() => proxy.close());
  const direct = await openPostgresStore(database.url);
  cleanups.push(() => direct.close());
  await direct.migrate();
  const store = await openPostgresStore(proxy.url, {
    connectionTimeoutMs: 500,
    onError: () => {},
    ...(options.lockTimeoutMs ? { lockTimeoutMs: options.lockTimeoutMs } : {}),
  });
  const pool = new WorkerPool(1);
  const { logger, lines } = recordingLogger();
  const engine = new TaskEngine({
    store,
    pool,
    logger,
    leaseMs: LEASE_MS,
    sweepIntervalMs: options.sweepIntervalMs ?? 60_000,
    concurrency: 1,
    ...(options.maxAttempts ? { maxAttempts: options.maxAttempts } : {}),
    ...(options.outageWaitMs ? { outageWaitMs: options.outageWaitMs } : {}),
  });
  engine.register(handler);
  cleanups.push(async () => {
    // Whatever the test left the proxy in (stalled, cut), the engine stops on a database that answers.
    await proxy.cut();
    await proxy.restore();
    await engine.stop(0);
    await pool.close();
    await store.close();
  });
  await engine.start();
  return { engine, proxy, direct, store, url: database.url, lines };
}

async function create(engine: TaskEngine, kind: string): Promise<string> {
  const { task } = await engine.create({ owner: 'tester', kind, input: {} });
  return task.id;
}

/** The task's row, once `done` says it is what the test waits for. */
async function rowWhen(direct: PostgresStore, taskId: string, done: (row: TaskRow) => boolean, what: string) {
  let row: TaskRow | undefined;
  await until(async () => {
    row = await direct.tasks.get(taskId);
    return row !== undefined && done(row);
  }, what);
  return row!;
}

/** The fields of the first line with `message`, which must have been logged with the error that caused it. */
function loggedWithError(lines: LogLine[], message: string): Record<string, unknown> {
  const line = lines.find((l) => l.message === message);
  assert.ok(line, `logged: ${message} (the log: ${JSON.stringify(lines.map((l) => l.message))})`);
  assert.ok(line.fields.err instanceof Error, `${message}: with its error`);
  return line.fields;
}

/**
 * A session idle in its transaction holds the tasks table for `ms`, `during` run once it holds it:
 * every write of the attempt, its renewals and its resume fail as "busy" while the database answers.
 */
async function tasksTableLocked(url: string, ms: number, during: () => void): Promise<void> {
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE tasks IN ACCESS EXCLUSIVE MODE');
    during();
    await sleep(ms);
    await holder.query('COMMIT');
  } finally {
    await holder.end();
  }
}

/** Cuts the proxy while `during` runs, for OUTAGE_MS in all, then restores it. */
async function outage(proxy: CuttableProxy, during: () => void | Promise<void>) {
  await proxy.cut();
  await during();
  await sleep(OUTAGE_MS);
  await proxy.restore();
}

test('the finish meets the database away: the attempt waits, resumes its lapsed lease and writes its result once', async () => {
  const held = heldAttempts('held');
  const { engine, proxy, direct, lines } = await engineBehindProxy(held.handler);
  const taskId = await create(engine, 'held');
  await until(() => held.attempts.length === 1, 'the attempt to start');
  await outage(proxy, () => held.attempts[0].go());
  const row = await rowWhen(direct, taskId, (r) => r.status !== 'working', 'the task to finish');
  assert.equal(row.status, 'completed');
  assert.deepEqual(JSON.parse(row.result!), { attempt: 1 });
  assert.equal(row.attempt, 1, 'the outage spent no attempt');
  assert.equal(held.attempts.length, 1, 'the work ran once');
  // What the operator reads: the attempt waited for the database, and why; its renewals failed meanwhile.
  assert.equal(loggedWithError(lines, 'the store is away; the attempt waits for it').trouble, 'unreachable');
  loggedWithError(lines, 'lease renewal failed; retrying at the next heartbeat');
});

test('away for longer than the attempt waits: the claim is left to lapse as a crash would, and the next attempt does the work', async () => {
  const held = heldAttempts('held');
  const { engine, proxy, direct } = await engineBehindProxy(held.handler, {
    outageWaitMs: 200,
    maxAttempts: 3,
    // The sweep finds the lapsed claim (the claim loop last looked while the database was away).
    sweepIntervalMs: 250,
  });
  const taskId = await create(engine, 'held');
  await until(() => held.attempts.length === 1, 'the first attempt to start');
  await outage(proxy, () => held.attempts[0].go());
  // The first attempt gave up on its write; its claim lapses and the task is claimed again.
  await until(() => held.attempts.length === 2, 'the second attempt to start');
  assert.equal(held.attempts[1].ctx.attempt, 2);
  held.attempts[1].go();
  const row = await rowWhen(direct, taskId, (r) => r.status !== 'working', 'the task to finish');
  assert.equal(row.status, 'completed');
  assert.deepEqual(JSON.parse(row.result!), { attempt: 2 }, 'the result is the second attempt’s');
});

test('the handler’s own read meets the database away: the task is given back once it answers, no attempt spent', async () => {
  let engineStore: PostgresStore | undefined;
  const held = heldAttempts('reads', async (ctx) => {
    ctx.progress('reading the site');
    // The handler reads the store (as the reflow reads its site): away, that read fails.
    await engineStore!.tasks.get(ctx.taskId);
  });
  const { engine, proxy, direct, lines } = await engineBehindProxy(held.handler, { maxAttempts: 1 });
  engineStore = engine.store as PostgresStore;
  const taskId = await create(engine, 'reads');
  await until(() => held.attempts.length === 1, 'the first attempt to start');
  await outage(proxy, () => held.attempts[0].go());
  await until(() => held.attempts.length === 2, 'the task to be claimed again');
  assert.equal(
    held.attempts[1].ctx.attempt,
    2,
    'the outage spent no attempt: with one allowed, it runs again (a new number)',
  );
  held.attempts[1].go();
  const row = await rowWhen(direct, taskId, (r) => r.status !== 'working', 'the task to finish');
  assert.equal(row.status, 'completed');
  const events = await direct.tasks.events(taskId);
  assert.ok(
    events.some((e) => e.kind === 'released' && /unreachable during this attempt/.test(e.message)),
    `the history says why: ${JSON.stringify(events.map((e) => [e.kind, e.message]))}`,
  );
  loggedWithError(lines, 'progress write failed');
  loggedWithError(lines, 'the store was away; giving the task back without spending the attempt');
});

test('the tasks table locked past lock_timeout under the finish and the resume: the attempt waits the lock out and writes its result once', async () => {
  const held = heldAttempts('held');
  const { engine, direct, url } = await engineBehindProxy(held.handler, { lockTimeoutMs: 50 });
  const taskId = await create(engine, 'held');
  await until(() => held.attempts.length === 1, 'the attempt to start');
  await tasksTableLocked(url, OUTAGE_MS, () => held.attempts[0].go());
  const row = await rowWhen(direct, taskId, (r) => r.status !== 'working', 'the task to finish');
  assert.deepEqual([row.status, row.attempt, JSON.parse(row.result!)], ['completed', 1, { attempt: 1 }]);
  assert.equal(held.attempts.length, 1, 'the work ran once');
});

test('the tasks table locked for longer than the attempt waits (busy, while the database answers its ping): the claim is left to lapse, and the next attempt does the work', async () => {
  const held = heldAttempts('held');
  const { engine, direct, url } = await engineBehindProxy(held.handler, {
    lockTimeoutMs: 50,
    outageWaitMs: 200,
    maxAttempts: 3,
    sweepIntervalMs: 250,
  });
  const taskId = await create(engine, 'held');
  await until(() => held.attempts.length === 1, 'the first attempt to start');
  // The ping answers throughout, so only the write's own deadline can end the wait: without it the
  // attempt tried its write, then its resume, again and again while the lock was held. Five times
  // the attempt's wait: without the deadline it would outlast the lock and finish.
  await tasksTableLocked(url, 1_000, () => held.attempts[0].go());
  await until(() => held.attempts.length === 2, 'the second attempt to start');
  assert.equal(held.attempts[1].ctx.attempt, 2);
  held.attempts[1].go();
  const row = await rowWhen(direct, taskId, (r) => r.status !== 'working', 'the task to finish');
  assert.deepEqual([row.status, JSON.parse(row.result!)], ['completed', { attempt: 2 }]);
});

test('a database that stops answering gets one lease renewal at a time from an attempt, not one per heartbeat', async () => {
  const held = heldAttempts('held');
  const { engine, proxy, direct, store } = await engineBehindProxy(held.handler);
  const taskId = await create(engine, 'held');
  await until(() => held.attempts.length === 1, 'the attempt to start');
  proxy.stall(); // every statement sent from now on waits for an answer that never comes
  await sleep(LEASE_MS * 3); // nine heartbeats of the attempt
  const { total, idle } = store.poolStats;
  // The attempt's one renewal, the node's one heartbeat, and a claim or a sweep at most.
  assert.ok(total - idle <= 3, `${total - idle} connections waiting on the stalled database`);
  await proxy.cut();
  await proxy.restore();
  held.attempts[0].go();
  const row = await rowWhen(direct, taskId, (r) => r.status !== 'working', 'the task to finish');
  assert.deepEqual([row.status, row.attempt], ['completed', 1]);
});

test('away until the lease lapsed, while another node took the scope: the attempt stops, and its task is given back without spending the attempt', async () => {
  const held = heldAttempts('scoped');
  const scoped: TaskHandler<unknown> = {
    ...held.handler,
    scope: async (input) => ({
      key: 'k',
      start: (input as { from: number }).from,
      end: (input as { from: number }).from + 10,
    }),
  };
  const { engine, proxy, direct } = await engineBehindProxy(scoped);
  const first = (await engine.create({ owner: 'tester', kind: 'scoped', input: { from: 0 } })).task.id;
  await until(() => held.attempts.length === 1, 'the attempt to start');
  const second = (await engine.create({ owner: 'tester', kind: 'scoped', input: { from: 5 } })).task.id;
  await proxy.cut();
  await sleep(LEASE_MS * 2); // the attempt's renewals fail; its lease lapses
  // Another node, which still reaches the database, claims the overlapping task.
  const rival = await direct.tasks.claimNext('inst_rival@elsewhere:1', 60_000, [], { takeOverLapsed: false });
  assert.equal(rival?.id, second);
  await proxy.restore();
  // Back, the attempt's renewal is refused and so is its resume: it stops.
  await until(() => held.attempts[0].ctx.signal.aborted, 'the attempt to be stopped');
  const row = await rowWhen(direct, first, (r) => r.claimedBy === null, 'the task to be given back');
  assert.deepEqual(
    [row.status, row.attempt, row.maxAttempts],
    ['working', 1, 4],
    'the outage spent no attempt (one more allowed; its number is not used again)',
  );
  const events = await direct.tasks.events(first);
  assert.match(events.at(-1)!.message, /database was unreachable and this attempt lost its lease/);
});
