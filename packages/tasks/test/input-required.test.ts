// input_required in the engine, against a real SQLite file: a task parks with questions and no
// lease, answers arrive by key (wrong and stale keys ignored), the last one resumes it with the
// state it kept, and a restart while it waits loses nothing.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, afterEach, test } from 'node:test';
import { OwnedTaskStore, type TaskHandler } from '../src/index.ts';
import { engineFactory, settled } from './engine-helper.ts';

const engines = engineFactory();
afterEach(() => engines.closeAll());
after(() => engines.removeDir());

let runs = 0;
/** Asks two questions in round 1, one more in round 2, then answers with everything it gathered. */
const interview: TaskHandler<{ topic: string }> = {
  kind: 'interview',
  async run(input, ctx) {
    runs++;
    const state = (ctx.resumed?.state ?? { round: 0, answers: {} }) as {
      round: number;
      answers: Record<string, unknown>;
    };
    const answers = { ...state.answers, ...ctx.resumed?.responses };
    if (state.round === 0)
      return {
        status: 'input_required',
        requests: { name: { ask: 'name?' }, colour: { ask: 'colour?' } },
        state: { round: 1, answers },
        message: `About ${input.topic}: two questions`,
      };
    if (state.round === 1)
      return {
        status: 'input_required',
        requests: { sure: { ask: 'sure?' } },
        state: { round: 2, answers },
        message: 'One more question',
      };
    return { status: 'completed', result: answers, message: 'All answered' };
  },
};

const engineOn = async (path: string) => (await engines.open(path, [interview])).engine;

async function until<T>(probe: () => Promise<T | undefined>, what: string, ms = 5_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

test('a task parks with unique keys, ignores wrong keys, resumes on the last answer, and survives a restart while waiting', async () => {
  const path = engines.freshPath();
  runs = 0;
  const first = await engineOn(path);
  await first.start();
  const store = new OwnedTaskStore(first);
  const { task } = await first.create({ owner: 'alice', kind: 'interview', input: { topic: 'paint' } });
  const parked = await until(
    async () => ((await first.get(task.id))?.status === 'input_required' ? store.get(task.id, 'alice') : undefined),
    'the task to park',
  );
  assert.deepEqual(Object.keys(parked.inputRequests!).sort(), ['r1-colour', 'r1-name']);
  assert.equal(parked.statusMessage, 'About paint: two questions');
  const row = (await first.get(task.id))!;
  assert.equal(row.claimedBy, null, 'no lease is held while waiting');
  assert.equal(first.runningCount, 0);

  // Wrong keys and another owner change nothing.
  assert.deepEqual(await first.answer(task.id, { 'r9-name': 'x', name: 'x' }, 'alice'), {
    accepted: 0,
    resumed: false,
  });
  assert.equal(await store.update(task.id, 'mallory', { 'r1-name': 'evil' }), false);
  // A partial answer: still waiting, only the unanswered key left.
  assert.equal(await store.update(task.id, 'alice', { 'r1-name': 'Ada' }), true);
  assert.deepEqual(Object.keys((await store.get(task.id, 'alice'))!.inputRequests!), ['r1-colour']);
  assert.equal((await store.get(task.id, 'alice'))!.status, 'input_required');

  // The process stops while the task waits; a new one on the same file carries on.
  await first.stop(0);
  const second = await engineOn(path);
  await second.start();
  const store2 = new OwnedTaskStore(second);
  assert.deepEqual(Object.keys((await store2.get(task.id, 'alice'))!.inputRequests!), ['r1-colour']);
  // The answered key is stale now: sending it again changes nothing.
  assert.deepEqual(await second.answer(task.id, { 'r1-name': 'Bob' }, 'alice'), { accepted: 0, resumed: false });
  assert.deepEqual(await second.answer(task.id, { 'r1-colour': 'teal' }, 'alice'), { accepted: 1, resumed: true });

  // Round 2: a new key, never one of round 1's.
  const again = await until(
    async () => ((await second.get(task.id))?.status === 'input_required' ? store2.get(task.id, 'alice') : undefined),
    'round 2',
  );
  assert.deepEqual(Object.keys(again.inputRequests!), ['r2-sure']);
  assert.equal(
    (await second.answer(task.id, { 'r1-colour': 'red' }, 'alice')).accepted,
    0,
    'a round-1 key is stale in round 2',
  );
  await second.answer(task.id, { 'r2-sure': { action: 'accept' } }, 'alice');
  const done = await settled(second, task.id);
  assert.equal(done?.status, 'completed');
  assert.deepEqual(JSON.parse(done.result!), { name: 'Ada', colour: 'teal', sure: { action: 'accept' } });
  assert.equal(runs, 3);
  assert.ok(done.attempt <= done.maxAttempts, 'parking does not use up attempts');
  assert.deepEqual(
    (await second.store.tasks.events(task.id)).map((e) => e.kind).filter((k) => k.startsWith('input')),
    ['input_required', 'input_received', 'input_received', 'input_required', 'input_received'],
  );
});

test('a task waiting for input can be cancelled, and answers after that change nothing', async () => {
  const engine = await engineOn(engines.freshPath());
  await engine.start();
  const { task } = await engine.create({ owner: 'o', kind: 'interview', input: { topic: 'x' } });
  await until(async () => ((await engine.get(task.id))?.status === 'input_required' ? true : undefined), 'park');
  assert.equal(await engine.cancel(task.id, 'o'), true);
  assert.deepEqual(await engine.answer(task.id, { 'r1-name': 'a', 'r1-colour': 'b' }, 'o'), {
    accepted: 0,
    resumed: false,
  });
  assert.equal((await engine.get(task.id))?.status, 'cancelled');
});
