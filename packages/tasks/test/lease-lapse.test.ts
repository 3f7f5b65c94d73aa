// An engine's lease can lapse while its attempt is alive (a main-thread stall, a forward clock
// jump). The same engine must not claim the task again; another engine may, and then the old
// attempt is fenced out and stopped. Clocks are injected so each interleaving is forced, not hoped for.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import { StaleAttemptError } from '@reflow/db';
import { AttemptInterrupted } from '../src/index.ts';
import type { RunContext, TaskHandler } from '../src/index.ts';
import { engineFactory, settled, until } from './engine-helper.ts';
import { MOVES_THE_CLOCK, sqliteOnly } from '../../../scripts/test-store.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

/** Attempts that wait for the test (or their abort), counting how many run at once. */
function watched() {
  const attempts: { ctx: RunContext; open: () => void }[] = [];
  let active = 0;
  let mostAtOnce = 0;
  const handler: TaskHandler<unknown> = {
    kind: 'watched',
    async run(_input, ctx) {
      active++;
      mostAtOnce = Math.max(mostAtOnce, active);
      try {
        await new Promise<void>((open) => {
          attempts.push({ ctx, open });
          ctx.signal.addEventListener('abort', () => open(), { once: true });
        });
        ctx.signal.throwIfAborted();
        ctx.progress(`attempt ${ctx.attempt} finishing`);
        return { status: 'completed', result: { attempt: ctx.attempt }, message: `attempt ${ctx.attempt} done` };
      } finally {
        active--;
      }
    },
  };
  return {
    handler,
    attempts,
    get active() {
      return active;
    },
    get mostAtOnce() {
      return mostAtOnce;
    },
  };
}

const LONG_LEASE_MS = 600_000; // its heartbeat (a third of it) never fires during a test

/**
 * A started engine (2 workers) on a fresh store, running `watched` tasks (through `handlerOf`, to
 * add to the handler), whose clock `lapse()` moves past every lease it handed out.
 */
async function engineWithLapsingClock(
  handlerOf: (w: ReturnType<typeof watched>) => TaskHandler<any> = (w) => w.handler,
) {
  let offset = 0;
  const w = watched();
  const { engine } = await engines.open(engines.freshPath(), [handlerOf(w)], {
    now: () => Date.now() + offset,
    leaseMs: LONG_LEASE_MS,
    concurrency: 2,
  });
  await engine.start();
  /** The clock jumps past the lease before the heartbeat can renew it; the engine looks for work. */
  const lapse = async () => {
    offset = LONG_LEASE_MS + 1;
    await engine.kick();
  };
  return { engine, w, lapse };
}

/** engineWithLapsingClock's engine with scoped tasks: the first one running, an overlapping second one queued. */
async function overlappingTasks() {
  const opened = await engineWithLapsingClock((w) => ({
    ...w.handler,
    scope: async (input: { from: number }) => ({ key: 'k', start: input.from, end: input.from + 10 }),
  }));
  const { engine, w } = opened;
  const first = (await engine.create({ owner: 'o', kind: 'watched', input: { from: 0 } })).task.id;
  await until(() => w.attempts.length === 1, 'the first task');
  const second = (await engine.create({ owner: 'o', kind: 'watched', input: { from: 5 } })).task.id;
  return { ...opened, first, second };
}

test(
  'a lapsed lease of its own running attempt: the engine does not claim the task again; cancel stops the one attempt',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    const { engine, w, lapse } = await engineWithLapsingClock();
    const { task } = await engine.create({ owner: 'o', kind: 'watched', input: {} });
    await until(() => w.attempts.length === 1, 'attempt 1');
    await lapse();
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(w.attempts.length, 1, 'no second attempt');
    assert.equal(engine.runningCount, 1);
    assert.equal((await engine.get(task.id))!.attempt, 1);
    assert.equal(await engine.cancel(task.id, 'o'), true);
    assert.equal(w.attempts[0].ctx.signal.aborted, true, 'cancel reached the running attempt');
    await until(() => engine.runningCount === 0 && w.active === 0, 'the attempt to stop');
    assert.equal((await engine.get(task.id))!.status, 'cancelled');
    assert.equal(w.mostAtOnce, 1);
  },
);

test(
  'a lapsed lease renewed by the heartbeat before the engine looks for work: still one attempt, and it completes',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    let offset = 0;
    const w = watched();
    const leaseMs = 300;
    const { engine } = await engines.open(engines.freshPath(), [w.handler], {
      now: () => Date.now() + offset,
      leaseMs,
    });
    await engine.start();
    const { task } = await engine.create({ owner: 'o', kind: 'watched', input: {} });
    await until(() => w.attempts.length === 1, 'attempt 1');
    offset = 10 * leaseMs;
    await until(
      async () => (await engine.get(task.id))!.leaseExpiresAt! > Date.now() + offset,
      'the heartbeat to renew the lease',
    );
    await engine.kick();
    assert.equal(w.attempts.length, 1);
    w.attempts[0].open();
    const done = await settled(engine, task.id);
    assert.deepEqual([done?.status, done?.attempt, w.mostAtOnce], ['completed', 1, 1]);
  },
);

test(
  'concurrency holds when leases lapse: the engine runs other tasks in the free slots only',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    const { engine, w, lapse } = await engineWithLapsingClock();
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push((await engine.create({ owner: 'o', kind: 'watched', input: { n } })).task.id);
    await until(() => w.attempts.length === 2, 'two attempts');
    await lapse();
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual([w.attempts.length, engine.runningCount, w.mostAtOnce], [2, 2, 2]);
    w.attempts[0].open();
    await until(() => w.attempts.length === 3, 'the third task in the freed slot');
    assert.equal((await engine.get(ids[2]))!.attempt, 1);
    for (const a of w.attempts.slice(1)) a.open();
    for (const id of ids) assert.equal((await settled(engine, id))?.status, 'completed');
    assert.equal(w.mostAtOnce, 2);
  },
);

test(
  'shutting down with a lapsed lease waits for the one attempt and releases it for the next start',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    const { engine, w, lapse } = await engineWithLapsingClock();
    const { task } = await engine.create({ owner: 'o', kind: 'watched', input: {} });
    await until(() => w.attempts.length === 1, 'attempt 1');
    await lapse();
    await new Promise((r) => setTimeout(r, 50));
    await engine.stop(0);
    assert.equal(w.active, 0, 'no attempt outlives stop');
    const row = (await engine.store.tasks.get(task.id))!;
    assert.deepEqual(
      [row.status, row.claimedBy, row.attempt, row.maxAttempts],
      ['working', null, 1, task.maxAttempts + 1],
      'released, attempt refunded: one more allowed, its number not used again',
    );
  },
);

for (const order of ['writes while the new attempt runs', 'writes after the new attempt finished'] as const)
  test(
    `another engine takes over a lapsed lease; the stalled attempt ${order}: refused, and stopped locally`,
    sqliteOnly(MOVES_THE_CLOCK),
    async () => {
      const path = engines.freshPath();
      const offsetA = 0;
      const a = watched();
      const { engine: engineA } = await engines.open(path, [a.handler], {
        now: () => Date.now() + offsetA,
        leaseMs: LONG_LEASE_MS,
      });
      await engineA.start();
      const { task } = await engineA.create({ owner: 'o', kind: 'watched', input: {} });
      await until(() => a.attempts.length === 1, 'attempt 1 on engine A');
      // Engine B (another process, its clock past A's lease) claims the task: attempt 2. B is not
      // started, so it does not reclaim A's tasks as a dead predecessor's; it only claims.
      const b = watched();
      const { engine: engineB } = await engines.open(path, [b.handler], {
        now: () => Date.now() + LONG_LEASE_MS + 1,
        leaseMs: LONG_LEASE_MS,
      });
      await engineB.kick();
      await until(() => b.attempts.length === 1, 'attempt 2 on engine B');
      assert.equal((await engineB.get(task.id))!.attempt, 2);
      const stale = a.attempts[0];
      const fence = { taskId: task.id, attempt: 1, claimedBy: engineA.instanceId };
      if (order === 'writes after the new attempt finished') {
        b.attempts[0].open();
        assert.equal((await settled(engineB, task.id))?.status, 'completed');
      }
      // The stalled attempt wakes and writes: every write is refused by the fence.
      assert.equal(await engineA.store.tasks.progress(fence, 'stale progress'), false);
      await assert.rejects(
        engineA.store.transaction((tx) =>
          tx.tasks.finish(fence, { status: 'completed', result: '{}', message: 'stale' }),
        ),
        StaleAttemptError,
      );
      // Through its own context too, and then engine A stops it (its lease is gone).
      stale.ctx.progress('stale progress through the context');
      await until(() => stale.ctx.signal.aborted, 'engine A to stop the stalled attempt');
      await until(() => engineA.runningCount === 0, 'engine A to let go of it');
      if (order === 'writes while the new attempt runs') {
        assert.equal((await engineB.get(task.id))!.status, 'working', 'attempt 2 still running, untouched');
        b.attempts[0].open();
      }
      const done = await settled(engineB, task.id);
      assert.deepEqual([done?.status, JSON.parse(done!.result!)], ['completed', { attempt: 2 }]);
      const events = await engineB.store.tasks.events(task.id);
      assert.ok(!events.some((e) => e.message.startsWith('stale')), 'no stale write recorded');
      assert.equal(a.active, 0);
    },
  );

test(
  'a running attempt whose lease lapsed still holds its scope: an overlapping task waits',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    const { engine, w, lapse, first, second } = await overlappingTasks();
    await lapse();
    await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(
      [w.attempts.length, (await engine.get(second))!.claimedBy],
      [1, null],
      'the overlapping task waits',
    );
    w.attempts[0].open();
    assert.equal((await settled(engine, first))?.status, 'completed');
    await until(() => w.attempts.length === 2, 'the second task after the first');
    w.attempts[1].open();
    assert.equal((await settled(engine, second))?.status, 'completed');
    assert.equal(w.mostAtOnce, 1);
  },
);

test(
  'the sweeper does not give up on a task whose last attempt is running here with a lapsed lease',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    let offset = 0;
    const w = watched();
    const { engine } = await engines.open(engines.freshPath(), [w.handler], {
      now: () => Date.now() + offset,
      leaseMs: LONG_LEASE_MS,
      maxAttempts: 1,
      sweepIntervalMs: 20,
    });
    await engine.start();
    const { task } = await engine.create({ owner: 'o', kind: 'watched', input: {} });
    await until(() => w.attempts.length === 1, 'the only attempt');
    offset = LONG_LEASE_MS + 1;
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await engine.get(task.id))!.status, 'working', 'not failed under its running attempt');
    w.attempts[0].open();
    assert.equal((await settled(engine, task.id))?.status, 'completed');
  },
);

for (const wakes of ['reports progress', 'finishes'] as const)
  test(
    `a lapsed attempt whose scope another node took meanwhile may not resume when it ${wakes}: it stops, and its task is released with the attempt spent`,
    sqliteOnly(MOVES_THE_CLOCK),
    async () => {
      const { engine, w, lapse, first, second } = await overlappingTasks();
      await lapse();
      // Another node, to which the first task's lapsed claim holds nothing, claims the overlapping one.
      const rival = await engine.store.tasks.claimNext('inst_rival@elsewhere:1', LONG_LEASE_MS, [], {
        takeOverLapsed: false,
      });
      assert.equal(rival?.id, second);
      // The stalled attempt wakes: its write is refused, and so is its resume (the scope is taken).
      if (wakes === 'reports progress') {
        w.attempts[0].ctx.progress('still copying');
        await until(() => w.attempts[0].ctx.signal.aborted, 'the attempt to be stopped');
        const reason: unknown = w.attempts[0].ctx.signal.reason;
        assert.ok(reason instanceof AttemptInterrupted && reason.why === 'lease lost', String(reason));
      } else w.attempts[0].open();
      await until(async () => (await engine.get(first))!.claimedBy === null, 'the task to be released');
      const row = (await engine.get(first))!;
      assert.deepEqual(
        [row.status, row.attempt, row.result],
        ['working', 1, null],
        'released, nothing written, and the attempt counts: no outage caused it',
      );
      const events = await engine.store.tasks.events(first);
      assert.equal(events.at(-1)?.kind, 'released');
      assert.match(events.at(-1)!.message, /^Attempt stopped/);
    },
  );

test(
  'a write that meets its own lapsed lease each time it resumes gives up after a few tries instead of spinning for ever',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    // From `runaway` on, every reading of the clock is a lease later than the one before: each
    // resumed lease has lapsed again by the time the write is judged (a node stalling over and over).
    let offset = 0;
    let runaway = false;
    const w = watched();
    const { engine } = await engines.open(engines.freshPath(), [w.handler], {
      now: () => Date.now() + (runaway ? (offset += LONG_LEASE_MS + 1) : offset),
      leaseMs: LONG_LEASE_MS,
      // One attempt: the task the attempt gives back is not claimed again (a second attempt would
      // hold runningCount at 1 and the test would wait for ever).
      maxAttempts: 1,
    });
    await engine.start();
    // A TTL of ten days, so the runaway clock does not expire the task within the few tries.
    const { task } = await engine.create({ owner: 'o', kind: 'watched', input: {}, ttlMs: 10 * 86_400_000 });
    await until(() => w.attempts.length === 1, 'the attempt to start');
    runaway = true;
    w.attempts[0].open();
    await until(() => engine.runningCount === 0, 'the attempt to give up');
    runaway = false;
    const row = (await engine.store.tasks.get(task.id))!;
    assert.deepEqual([row.status, row.result], ['working', null], 'nothing of the attempt was written');
    assert.equal(w.attempts.length, 1);
  },
);
