// Progress writes are throttled: the first at once, then at most one per interval, the newest
// message winning, and nothing written after the attempt has stopped.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import { ProgressThrottle } from '../src/progress-throttle.ts';

test('the first message is written at once; a burst within the interval becomes its newest message, once', async () => {
  const written: string[] = [];
  const throttle = new ProgressThrottle((m) => written.push(m), 50);
  throttle.report('1 of 5');
  for (const m of ['2 of 5', '3 of 5', '4 of 5']) throttle.report(m);
  assert.deepEqual(written, ['1 of 5']);
  const deadline = Date.now() + 2000;
  while (written.length < 2 && Date.now() < deadline) await sleep(5);
  assert.deepEqual(written, ['1 of 5', '4 of 5']);
  await sleep(80);
  throttle.report('5 of 5');
  assert.deepEqual(written, ['1 of 5', '4 of 5', '5 of 5'], 'a quiet interval later, a message is written at once');
  throttle.stop();
});

test('flush writes what is pending at once (the work is done); stop drops it (the work was abandoned)', async () => {
  const written: string[] = [];
  const throttle = new ProgressThrottle((m) => written.push(m), 10_000);
  throttle.report('1 of 3');
  throttle.report('2 of 3');
  throttle.report('3 of 3');
  throttle.flush();
  assert.deepEqual(written, ['1 of 3', '3 of 3']);
  throttle.flush();
  assert.deepEqual(written, ['1 of 3', '3 of 3'], 'nothing twice');
  throttle.stop();
});

test('stop drops what is pending: the attempt has ended and its final write says more', async () => {
  const written: string[] = [];
  const throttle = new ProgressThrottle((m) => written.push(m), 30);
  throttle.report('a');
  throttle.report('b');
  throttle.stop();
  await sleep(60);
  assert.deepEqual(written, ['a']);
});
