// The durable engine against a real SQLite file: durable create, dedupe, terminal states that stay
// terminal, retries, fenced writes from a superseded attempt, restart reclaim and TTL.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, test } from 'node:test';
import { openDatabase } from '@reflow/db';
import { PermanentTaskError, type TaskHandler } from '../src/index.ts';
import { engineFactory } from './engine-helper.ts';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());
const engineOn: typeof engines.open = (...args) => engines.open(...args);
const freshPath = engines.freshPath;

const echo: TaskHandler<{ value: number }> = {
  kind: 'echo',
  async run(input, ctx) {
    ctx.progress(`working on ${input.value}`);
    return { status: 'completed', result: { doubled: input.value * 2 }, message: 'done' };
  },
};

test('create is durable, dedupes identical work per owner, and completes', async () => {
  const path = freshPath();
  const { engine } = engineOn(path, [echo]);
  engine.start();
  const a = engine.create({ owner: 'alice', kind: 'echo', input: { value: 21 } });
  const reader = openDatabase(path, { readonly: true });
  try {
    assert.ok(
      reader.sqlite.prepare('SELECT 1 FROM tasks WHERE id = ?').get(a.task.id),
      'row visible to another connection',
    );
  } finally {
    reader.close();
  }
  const again = engine.create({ owner: 'alice', kind: 'echo', input: { value: 21 } });
  assert.equal(again.created, false);
  assert.equal(again.task.id, a.task.id);
  assert.equal(engine.create({ owner: 'bob', kind: 'echo', input: { value: 21 } }).created, true);
  const done = await engine.waitFor(a.task.id);
  assert.equal(done?.status, 'completed');
  assert.deepEqual(JSON.parse(done.result!), { doubled: 42 });
  assert.deepEqual(
    engine.queries.tasks.events(a.task.id).map((e) => e.kind),
    ['created', 'claimed', 'progress', 'completed'],
  );
  // Terminal means terminal: a later cancel changes nothing.
  assert.equal(engine.cancel(a.task.id, 'alice'), false);
  assert.equal(engine.get(a.task.id)?.status, 'completed');
});

test('a failing attempt is retried; a task out of attempts fails with the reason; a permanent error fails at once', async () => {
  let calls = 0;
  const flaky: TaskHandler = {
    kind: 'flaky',
    async run() {
      if (++calls === 1) throw new Error('transient');
      return { status: 'completed', result: { calls }, message: 'ok' };
    },
  };
  const broken: TaskHandler = {
    kind: 'broken',
    maxAttempts: 2,
    async run() {
      throw new Error('always broken');
    },
  };
  const refused: TaskHandler = {
    kind: 'refused',
    async run() {
      throw new PermanentTaskError('bad input', -32602);
    },
  };
  const { engine } = engineOn(freshPath(), [flaky, broken, refused]);
  engine.start();
  const f = await engine.waitFor(engine.create({ owner: 'o', kind: 'flaky', input: {} }).task.id);
  assert.equal(f?.status, 'completed');
  assert.equal(f.attempt, 2);
  const b = await engine.waitFor(engine.create({ owner: 'o', kind: 'broken', input: {} }).task.id);
  assert.equal(b?.status, 'failed');
  assert.match(b.error!.message, /Failed after 2 attempt\(s\): always broken/);
  const r = await engine.waitFor(engine.create({ owner: 'o', kind: 'refused', input: {} }).task.id);
  assert.deepEqual([r?.status, r?.attempt, r?.error?.code], ['failed', 1, -32602]);
});

test('a cancelled task discards its attempt: writes it would commit roll back', async () => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const path = freshPath();
  const { engine, connection } = engineOn(path, []);
  connection.sqlite.exec('CREATE TABLE side_effects (id TEXT)');
  engine.register({
    kind: 'slow',
    async run(_input, ctx) {
      await gate;
      return {
        status: 'completed',
        commit: () => {
          connection.sqlite.prepare('INSERT INTO side_effects VALUES (?)').run(ctx.taskId);
          return { result: {}, message: 'applied' };
        },
      };
    },
  });
  engine.start();
  const { task } = engine.create({ owner: 'o', kind: 'slow', input: {} });
  while (engine.runningCount === 0) await sleep(5);
  assert.equal(engine.cancel(task.id, 'o'), true);
  release();
  while (engine.runningCount > 0) await sleep(5);
  assert.equal(engine.get(task.id)?.status, 'cancelled');
  assert.equal((connection.sqlite.prepare('SELECT count(*) AS n FROM side_effects').get() as { n: number }).n, 0);
});

test('after a restart the new process reclaims the task; the old attempt can no longer write', async () => {
  let releaseOld!: () => void;
  const oldGate = new Promise<void>((r) => (releaseOld = r));
  const path = freshPath();
  const old = engineOn(path, [
    {
      kind: 'job',
      async run() {
        await oldGate;
        return { status: 'completed', result: { by: 'old' }, message: 'old' };
      },
    },
  ]);
  old.engine.start();
  const { task } = old.engine.create({ owner: 'o', kind: 'job', input: {} });
  while (old.engine.runningCount === 0) await sleep(5);
  // A second process starts on the same file, as after a crash of the first.
  const fresh = engineOn(path, [
    {
      kind: 'job',
      async run() {
        return { status: 'completed', result: { by: 'new' }, message: 'new' };
      },
    },
  ]);
  fresh.engine.start();
  const done = await fresh.engine.waitFor(task.id);
  assert.equal(done?.attempt, 2);
  assert.deepEqual(JSON.parse(done.result!), { by: 'new' });
  releaseOld();
  while (old.engine.runningCount > 0) await sleep(5);
  assert.deepEqual(
    JSON.parse(fresh.engine.get(task.id)!.result!),
    { by: 'new' },
    'the stale attempt did not overwrite',
  );
});

test('TTL counts from creation: an expired task reads as gone and the sweeper deletes it with its history', async () => {
  let now = 1_000_000;
  const { engine } = engineOn(freshPath(), [echo], { now: () => now, defaultTtlMs: 60_000 });
  const { task } = engine.create({ owner: 'o', kind: 'echo', input: { value: 1 } });
  assert.equal(task.expiresAt, task.createdAt + 60_000);
  now += 59_999;
  assert.ok(engine.get(task.id));
  now += 1;
  assert.equal(engine.get(task.id), undefined);
  assert.equal(engine.queries.tasks.sweepExpired(now), 1);
  assert.equal(engine.queries.tasks.get(task.id), undefined);
  assert.equal(engine.queries.tasks.events(task.id).length, 0);
});
