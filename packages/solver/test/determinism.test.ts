// Same snapshot, same plan: solving twice, or with the input arrays shuffled, gives a
// deep-equal plan (and so byte-identical JSON).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateScenario } from '@reflow/seed';
import { loadHighsEngine, solve, type Problem } from '../src/index.ts';
import { scenarioProblem } from '../bench/site-problem.ts';
import { prng, shuffled } from './helpers.ts';
import { mediumInstance } from './medium-instance.ts';
import { randomInstance } from './random-instance.ts';

function shuffle(p: Problem, seed: number): Problem {
  const rng = prng(seed);
  const r = () => rng.next();
  return {
    rooms: shuffled(p.rooms, r).map((room) => ({
      ...room,
      open: shuffled(room.open, r),
      features: shuffled(room.features, r),
    })),
    bookings: shuffled(p.bookings, r).map((b) => ({ ...b, requiredFeatures: shuffled(b.requiredFeatures, r) })),
    offlineRooms: shuffled(p.offlineRooms, r),
    window: { ...p.window },
  };
}

test('solving the same instance twice gives identical plans', () => {
  const p = mediumInstance(11);
  const first = solve(p);
  assert.deepEqual(solve(p), first);
  assert.equal(JSON.stringify(solve(p)), JSON.stringify(first));
});

test('shuffled input order gives the same plan', () => {
  for (let seed = 1; seed <= 40; seed++) {
    const p = randomInstance(seed);
    assert.deepEqual(solve(shuffle(p, seed)), solve(p), `seed ${seed}`);
  }
  const medium = mediumInstance(12);
  assert.equal(JSON.stringify(solve(shuffle(medium, 5))), JSON.stringify(solve(medium)));
});

test('a generated campus, with HiGHS solving its large components: byte-identical plans, shuffled or not', async () => {
  await loadHighsEngine();
  const problem = scenarioProblem(generateScenario({ seed: 4, rooms: 16, offline: 5 }));
  const first = JSON.stringify(solve(problem, { maxJsLpVariables: 20 }));
  assert.equal(JSON.stringify(solve(problem, { maxJsLpVariables: 20 })), first);
  assert.equal(JSON.stringify(solve(shuffle(problem, 9), { maxJsLpVariables: 20 })), first);
  assert.ok(JSON.parse(first).engines.highs > 0, 'HiGHS ran');
});
