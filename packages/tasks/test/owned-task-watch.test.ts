// OwnedTaskStore.watch where a write races the watch's first read, in each order: the write lands
// before that read (the watch opens with it and never tells it again), or right after it (told once,
// at once, not left to the re-read). A follower opening with one read and hearing changes from
// another once pushed the same statusMessage twice.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, test } from 'node:test';
import { OwnedTaskStore, type OwnedTaskView, type TaskHandler } from '../src/index.ts';
import { engineFactory } from './engine-helper.ts';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

/** Parks with two questions; once both are answered, completes. */
const twoQuestions: TaskHandler<Record<string, never>> = {
  kind: 'two-questions',
  async run(_input, ctx) {
    if (!ctx.resumed)
      return {
        status: 'input_required',
        requests: { name: { ask: 'name?' }, colour: { ask: 'colour?' } },
        state: {},
        message: 'Two questions',
      };
    return { status: 'completed', result: ctx.resumed.responses, message: 'All answered' };
  },
};

/** Pending input keys: the part of the view the partial answer changes. */
const waitingOn = (task: OwnedTaskView | undefined) => Object.keys(task?.inputRequests ?? {}).sort();

async function parkedTask() {
  const { engine } = await engines.open(engines.freshPath(), [twoQuestions]);
  await engine.start();
  const { task } = await engine.create({ owner: 'alice', kind: 'two-questions', input: {} });
  for (let i = 0; (await engine.get(task.id))?.status !== 'input_required'; i++) {
    assert.ok(i < 500, 'the task parked');
    await sleep(10);
  }
  return { engine, taskId: task.id };
}

/**
 * A store whose first read (the watch's) runs `during` as the read is asked (`before` the real
 * read) or once it has answered (`after`), so the race is forced, not hoped for.
 */
function racingStore(store: OwnedTaskStore, when: 'before' | 'after', during: () => Promise<unknown>) {
  const realGet = store.get.bind(store);
  let reads = 0;
  store.get = async (taskId, owner) => {
    if (++reads !== 1) return realGet(taskId, owner);
    if (when === 'before') await during();
    const task = await realGet(taskId, owner);
    if (when === 'after') await during();
    return task;
  };
  return store;
}

// The re-read is an hour away: only the write's own signal can tell a change within the test.
const NO_RECHECK = 3_600_000;

/** A watch on a parked task whose first read races a partial answer, `when` as asked; what it told. */
async function racedWatch(t: { after(fn: () => void): void }, when: 'before' | 'after') {
  const { engine, taskId } = await parkedTask();
  const store = racingStore(new OwnedTaskStore(engine), when, () =>
    engine.answer(taskId, { 'r1-name': 'Ada' }, 'alice'),
  );
  const told: (OwnedTaskView | undefined)[] = [];
  const followed = await store.watch(taskId, 'alice', (task) => told.push(task), NO_RECHECK);
  assert.ok(followed);
  t.after(followed.stop);
  return { engine, taskId, opened: followed.task, told };
}

test('watch: a write landing before its first read is what it opens with, and is not told again', async (t) => {
  const { engine, taskId, opened, told } = await racedWatch(t, 'before');
  assert.deepEqual(waitingOn(opened), ['r1-colour'], 'opens with the answer already in');
  await sleep(200);
  assert.equal(told.length, 0, 'the write it opened with is no news');

  await engine.answer(taskId, { 'r1-colour': 'teal' }, 'alice');
  for (let i = 0; told.at(-1)?.status !== 'completed'; i++) {
    assert.ok(i < 500, `the task completed and was told (${JSON.stringify(told.map((x) => x?.status))})`);
    await sleep(10);
  }
  const states = told.map((x) => JSON.stringify([x?.status, x?.statusMessage, waitingOn(x)]));
  assert.equal(new Set(states).size, states.length, `no state told twice: ${states.join(' ')}`);
  assert.ok(!told.some((x) => x?.status === 'input_required'), 'only what followed the opening was told');
});

test('watch: a write landing right after its first read is told once, at once, not left to the re-read', async (t) => {
  const { opened, told } = await racedWatch(t, 'after');
  assert.deepEqual(waitingOn(opened), ['r1-colour', 'r1-name'], 'opens with what the read saw');
  for (let i = 0; told.length === 0; i++) {
    assert.ok(i < 500, 'the write after the first read was told');
    await sleep(10);
  }
  await sleep(200);
  assert.equal(told.length, 1, 'told once');
  assert.deepEqual(waitingOn(told[0]), ['r1-colour']);
});
