// The PRNG is the root of determinism: fixed sequences, values in range, independent forks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRng, forkSeed, mulberry32 } from '../prng.ts';

test('mulberry32 is a fixed sequence in [0, 1)', () => {
  const a = mulberry32(123);
  const b = mulberry32(123);
  for (let i = 0; i < 1000; i++) {
    const x = a();
    assert.equal(x, b());
    assert.ok(x >= 0 && x < 1);
  }
});

test('int stays within its inclusive bounds and reaches both ends', () => {
  const rng = createRng(1);
  const seen = new Set<number>();
  for (let i = 0; i < 500; i++) seen.add(rng.int(3, 6));
  assert.deepEqual([...seen].sort(), [3, 4, 5, 6]);
});

test('weighted never picks a zero weight; forks differ by label', () => {
  const rng = createRng(2);
  for (let i = 0; i < 200; i++)
    assert.notEqual(
      rng.weighted(['a', 'b', 'c'], (x) => (x === 'b' ? 0 : 1)),
      'b',
    );
  assert.notEqual(forkSeed(1, 'series:studio-a'), forkSeed(1, 'series:studio-b'));
  assert.equal(forkSeed(1, 'x'), forkSeed(1, 'x'));
});
