// A task past its TTL is gone for its owner ("expired"); an attempt still running it must then
// write nothing: no progress, no park, no terminal state. Judged on the engine's one clock.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import { StaleAttemptError } from '@reflow/db';
import type { TaskHandler } from '../src/index.ts';
import { engineFactory, until } from './engine-helper.ts';
import { MOVES_THE_CLOCK, sqliteOnly } from '../../../scripts/test-store.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

const TTL_MS = 60_000;

/** Waits on a gate (or its abort, so a failing test never hangs), then reports progress and ends as its input says. */
function lateWriter() {
  const gates: (() => void)[] = [];
  const handler: TaskHandler<{ end: 'completed' | 'input_required' }> = {
    kind: 'late',
    async run(input, ctx) {
      await new Promise<void>((r) => {
        gates.push(r);
        ctx.signal.addEventListener('abort', () => r(), { once: true });
      });
      ctx.signal.throwIfAborted();
      ctx.progress('late progress');
      return input.end === 'completed'
        ? { status: 'completed', result: { late: true }, message: 'late finish' }
        : { status: 'input_required', requests: { q: {} }, message: 'late park' };
    },
  };
  return { handler, openNext: () => gates.shift()?.(), waiting: () => gates.length };
}

for (const end of ['completed', 'input_required'] as const)
  test(
    `an attempt that outlives its task's TTL writes nothing: progress and ${end === 'completed' ? 'finish' : 'park'} are refused`,
    sqliteOnly(MOVES_THE_CLOCK),
    async () => {
      let offset = 0;
      const late = lateWriter();
      const { engine, connection } = await engines.open(engines.freshPath(), [late.handler], {
        now: () => Date.now() + offset,
        defaultTtlMs: TTL_MS,
      });
      await engine.start();
      const { task } = await engine.create({ owner: 'alice', kind: 'late', input: { end } });
      await until(() => late.waiting() === 1, 'the attempt to start');
      // The clock passes the TTL while the attempt works: the owner now hears "expired".
      offset = TTL_MS;
      assert.equal(await engine.get(task.id), undefined);
      assert.equal(await engine.expired(task.id, 'alice'), true);
      late.openNext();
      await until(() => engine.runningCount === 0, 'the attempt to end');
      const row = connection.sqlite
        .prepare('SELECT status, result, status_message AS statusMessage FROM tasks WHERE id = ?')
        .get(task.id) as { status: string; result: string | null; statusMessage: string | null };
      assert.deepEqual(
        [row.status, row.result, (row.statusMessage ?? '').startsWith('late')],
        ['working', null, false],
      );
      const kinds = (await engine.store.tasks.events(task.id)).map((e) => e.kind);
      assert.ok(!kinds.includes('progress') && !kinds.includes(end), `no late write in ${kinds.join(', ')}`);
      assert.equal(await engine.store.inputs.get(task.id), undefined, 'nothing parked');
      assert.equal(await engine.expired(task.id, 'alice'), true, 'still expired');
    },
  );

test(
  'the fence refuses every write of an attempt once its task expired, at the instant of expiry',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    let now = 7_000_000;
    const late = lateWriter();
    const { engine, connection } = await engines.open(engines.freshPath(), [late.handler], {
      now: () => now,
      defaultTtlMs: TTL_MS,
      // A lease past the TTL: the write a millisecond before expiry is refused for the TTL alone.
      leaseMs: 2 * TTL_MS,
    });
    await engine.start();
    const { task } = await engine.create({ owner: 'o', kind: 'late', input: { end: 'completed' } });
    await until(() => late.waiting() === 1, 'the attempt to start');
    const row = (await engine.store.tasks.get(task.id))!;
    const fence = { taskId: task.id, attempt: row.attempt, claimedBy: row.claimedBy! };
    const q = engine.store;
    const at = row.expiresAt;
    // The store's clock is the one the fence is judged by: set to a millisecond before, then to the instant.
    now = at - 1;
    assert.equal(await q.tasks.progress(fence, 'just in time'), true, 'a millisecond before, it may write');
    now = at;
    assert.equal(await q.tasks.progress(fence, 'at expiry'), false);
    await assert.rejects(
      q.transaction((tx) => tx.tasks.finish(fence, { status: 'completed', result: '{}', message: 'x' })),
      StaleAttemptError,
    );
    await assert.rejects(q.inputs.park(fence, { requests: { q: {} }, state: null, message: 'x' }), StaleAttemptError);
    assert.equal(await q.tasks.release(fence, 'x'), false);
    assert.equal(await q.tasks.renewLease(fence, 30_000), false);
    late.openNext();
    await until(() => engine.runningCount === 0, 'the attempt to end');
    assert.equal(connection.sqlite.prepare('SELECT status FROM tasks WHERE id = ?').pluck().get(task.id), 'working');
  },
);
