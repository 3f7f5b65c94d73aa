// The poll interval: a quarter of the expected wait, within [base, ceiling]; and the engine hands
// out a fresh one on every read, from the task's place in the queue and how long attempts take.
import assert from 'node:assert/strict';
import { after, afterEach, test } from 'node:test';
import fc from 'fast-check';
import { MAX_POLL_INTERVAL_MS, pollIntervalFor, type TaskHandler } from '../src/index.ts';
import { engineFactory, gated, until } from './engine-helper.ts';
import { MOVES_THE_CLOCK, sqliteOnly } from '../../../scripts/test-store.mjs';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

test('before any attempt has finished: the base while running, one more base per round of queue ahead', () => {
  const base = { baseMs: 1000, concurrency: 2, elapsedMs: 0 };
  assert.equal(pollIntervalFor({ ...base, ahead: 0, running: true }), 1000);
  assert.equal(pollIntervalFor({ ...base, ahead: 1, running: false }), 1000);
  assert.equal(pollIntervalFor({ ...base, ahead: 5, running: false }), 3000);
});

test('with an estimate: a quarter of the expected wait, never below the base nor above the ceiling', () => {
  const s = { baseMs: 250, concurrency: 2, running: false, elapsedMs: 0, typicalMs: 2000 };
  // 10 ahead on 2 workers: 5 rounds, then its own attempt: 12 s expected, polled every 3 s.
  assert.equal(pollIntervalFor({ ...s, ahead: 10 }), 3000);
  assert.equal(pollIntervalFor({ ...s, ahead: 0 }), 500);
  assert.equal(pollIntervalFor({ ...s, ahead: 1000 }), MAX_POLL_INTERVAL_MS);
  // Running: what is left of a typical attempt; past it, the base (it may end any moment).
  assert.equal(pollIntervalFor({ ...s, ahead: 0, running: true, elapsedMs: 1000 }), 250);
  assert.equal(pollIntervalFor({ ...s, ahead: 0, running: true, elapsedMs: 0, typicalMs: 8000 }), 2000);
  assert.equal(pollIntervalFor({ ...s, ahead: 0, running: true, elapsedMs: 9000, typicalMs: 8000 }), 250);
});

test('the interval stays within [base, ceiling] and never shrinks as the queue ahead grows', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 50, max: 5000 }),
      fc.integer({ min: 1, max: 8 }),
      fc.option(fc.integer({ min: 1, max: 600_000 }), { nil: undefined }),
      fc.integer({ min: 0, max: 500 }),
      (baseMs, concurrency, typicalMs, ahead) => {
        const at = (n: number) =>
          pollIntervalFor({ baseMs, concurrency, typicalMs, ahead: n, running: false, elapsedMs: 0 });
        const interval = at(ahead);
        assert.ok(
          interval >= Math.min(baseMs, MAX_POLL_INTERVAL_MS) && interval <= Math.max(baseMs, MAX_POLL_INTERVAL_MS),
        );
        assert.ok(at(ahead + 1) >= interval);
      },
    ),
  );
});

test(
  'each read hands out the interval for now: it grows with the place in the queue and shrinks as the task nears its turn',
  sqliteOnly(MOVES_THE_CLOCK),
  async () => {
    let now = 1_000_000;
    const slow = gated('slow');
    const { engine } = await engines.open(engines.freshPath(), [slow.handler], {
      basePollIntervalMs: 100,
      now: () => now,
    });
    await engine.start();
    // One attempt finishes in 4 s (by the engine's clock): its estimate for the kind.
    const first = (await engine.create({ owner: 'o', kind: 'slow', input: { n: 0 } })).task;
    await until(() => slow.waiting() === 1, 'the first attempt');
    now += 4000;
    slow.openNext();
    await until(async () => (await engine.get(first.id))?.status === 'completed', 'the first task');

    const running = (await engine.create({ owner: 'o', kind: 'slow', input: { n: 1 } })).task;
    await until(() => slow.waiting() === 1, 'the second attempt');
    const queued = [];
    for (let i = 0; i < 6; i++) {
      now += 1; // one after the other: the queue is worked oldest first
      queued.push((await engine.create({ owner: 'o', kind: 'slow', input: { n: 2 + i } })).task);
    }
    const last = queued.at(-1)!;
    const drain = () =>
      until(async () => {
        slow.openNext();
        return (await engine.get(last.id))?.status === 'completed';
      }, 'the queue to drain');
    const intervalOf = async (id: string) => engine.pollIntervalFor((await engine.get(id))!);
    try {
      // Five ahead of it on one worker, then its own: 6 × 4 s expected, asked every 6 s.
      assert.equal(await intervalOf(last.id), 6000);
      assert.equal(last.pollIntervalMs, 6000, 'created with the interval for the back of the queue');
      assert.equal(await intervalOf(queued[0].id), 1000);
      // Running: a quarter of what is left of a typical 4 s attempt.
      const startedAt = (await engine.get(running.id))!.startedAt!;
      const left = () => 4000 - (now - startedAt);
      assert.equal(await intervalOf(running.id), Math.round(left() / 4));
      now += 3000;
      assert.equal(await intervalOf(running.id), Math.max(100, Math.round(left() / 4)));
    } finally {
      await drain();
    }
    assert.equal(
      await intervalOf(last.id),
      (await engine.get(last.id))!.pollIntervalMs,
      'a finished task keeps its interval',
    );
  },
);

test('the stored interval of a task is the one it was created with; reads do not write', async () => {
  const echo: TaskHandler<{ v: number }> = {
    kind: 'echo',
    async run(input) {
      return { status: 'completed', result: input, message: 'done' };
    },
  };
  const { engine } = await engines.open(engines.freshPath(), [echo], { basePollIntervalMs: 700 });
  const task = (await engine.create({ owner: 'o', kind: 'echo', input: { v: 1 } })).task;
  assert.equal(task.pollIntervalMs, 700);
  await engine.pollIntervalFor((await engine.get(task.id))!);
  assert.equal((await engine.get(task.id))!.lastUpdatedAt, task.lastUpdatedAt);
});
