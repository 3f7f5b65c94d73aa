// A queued task's place in the queue comes from one shared read per quarter second: pollers asking
// while a read is under way wait for that read instead of each starting their own.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { QueuePositions, type QueuedTask } from '../src/queue-positions.ts';

const QUEUE: QueuedTask[] = [
  { createdAt: 1, id: 'a' },
  { createdAt: 2, id: 'b' },
  { createdAt: 2, id: 'c' },
];

test('pollers asking at once share one read; a snapshot older than maxAgeMs is read again', async () => {
  let reads = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const positions = new QueuePositions(async () => {
    reads++;
    await gate;
    return QUEUE;
  }, 250);
  const asks = [
    positions.ahead({ createdAt: 2, id: 'c' }, 1_000),
    positions.ahead({ createdAt: 1, id: 'a' }, 1_000),
    positions.ahead({ createdAt: 3, id: 'z' }, 1_001),
  ];
  release();
  assert.deepEqual(await Promise.all(asks), [2, 0, 3], 'oldest first, ties by id');
  assert.equal(reads, 1, 'one read for the three pollers');
  assert.equal(await positions.ahead({ createdAt: 2, id: 'b' }, 1_250), 1);
  assert.equal(reads, 1, 'still fresh at maxAgeMs');
  await positions.ahead({ createdAt: 2, id: 'b' }, 1_251);
  assert.equal(reads, 2, 'read again once older than maxAgeMs');
});
