// The push throttle on a clock the test moves: the first push goes at once, later ones within the
// spacing wait (the newest replacing the rest) and go when it ends; a terminal one goes at once,
// right after the one still waiting; after stop nothing is pushed.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PushThrottle } from '../src/push-throttle.ts';

interface Item {
  message: string;
  last?: boolean;
}

function throttle(spacingMs: number) {
  let now = 0;
  const pushed: string[] = [];
  const t = new PushThrottle<Item>(
    (item) => pushed.push(item.message),
    () => spacingMs,
    (item) => item.last === true,
    () => now,
  );
  return { t, pushed, advance: (ms: number) => (now += ms) };
}

/** Waits, bounded, until `done()` holds: the throttle's timer fires on the real clock. */
async function until(done: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    assert.ok(Date.now() < deadline, 'the waiting push was not sent in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test('push throttle: at once, then the newest of those within the spacing when it ends', async () => {
  const { t, pushed, advance } = throttle(40);
  t.offer({ message: 'a' });
  assert.deepEqual(pushed, ['a']);
  advance(10);
  t.offer({ message: 'b' });
  t.offer({ message: 'c' });
  assert.deepEqual(pushed, ['a'], 'b and c wait; c replaced b');
  advance(30);
  await until(() => pushed.length === 2);
  assert.deepEqual(pushed, ['a', 'c']);
  advance(100);
  t.offer({ message: 'd' });
  assert.deepEqual(pushed, ['a', 'c', 'd'], 'past the spacing: at once');
});

test('push throttle: a terminal item goes at once, after the one waiting; nothing is pushed after stop', async () => {
  const { t, pushed, advance } = throttle(1_000);
  t.offer({ message: 'a' });
  t.offer({ message: 'b' });
  t.offer({ message: 'done', last: true });
  assert.deepEqual(pushed, ['a', 'b', 'done']);
  advance(5_000);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.deepEqual(pushed, ['a', 'b', 'done'], 'nothing was left waiting');
  t.stop();
  t.offer({ message: 'late' });
  assert.deepEqual(pushed, ['a', 'b', 'done'], 'nothing after stop');
});
