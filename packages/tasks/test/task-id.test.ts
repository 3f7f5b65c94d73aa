// Task ids are bearers of their work: 160 random bits each, never repeated, also across the
// refills of the pool of random bytes they are cut from.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { dedupeKey, newTaskId } from '../src/task-id.ts';

test('task ids are tsk_ and 40 hex digits, all distinct over many refills of the random pool', () => {
  const ids = Array.from({ length: 5_000 }, () => newTaskId());
  for (const id of ids) assert.match(id, /^tsk_[0-9a-f]{40}$/);
  assert.equal(new Set(ids).size, ids.length);
  // Every hex digit appears in every position (bits are not reused or fixed).
  for (let i = 4; i < 44; i++) assert.equal(new Set(ids.map((id) => id[i])).size, 16, `position ${i}`);
});

test('the dedupe key ignores key order and undefined members, and tells kinds apart', () => {
  assert.equal(dedupeKey('k', { a: 1, b: [1, { c: 2, d: undefined }] }), dedupeKey('k', { b: [1, { c: 2 }], a: 1 }));
  assert.notEqual(dedupeKey('k', { a: 1 }), dedupeKey('j', { a: 1 }));
  assert.notEqual(dedupeKey('k', { a: 1 }), dedupeKey('k', { a: '1' }));
});
