// A queued task's place in the queue comes from one shared read per quarter second: pollers asking
// while a read is under way wait for that read instead of each starting their own. The depth is a
// count of its own (no read of the order), corrected by what this process queued and claimed since.
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
  const positions = new QueuePositions(
    async () => {
      reads++;
      await gate;
      return QUEUE;
    },
    () => Promise.reject(new Error('no count is read for a place in the queue')),
    250,
  );
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

test('the depth is a count read at most once per maxAgeMs, corrected by what this process queued and claimed since', async () => {
  const counts = [5, 9];
  let countReads = 0;
  const positions = new QueuePositions(
    () => Promise.reject(new Error('the depth never reads the order')),
    async () => counts[countReads++],
    250,
  );
  const [a, b] = await Promise.all([positions.depth(1_000), positions.depth(1_000)]);
  assert.deepEqual([a, b, countReads], [5, 5, 1], 'one count for both');
  positions.noteQueued(1);
  positions.noteQueued(1);
  positions.noteQueued(-1);
  assert.equal(await positions.depth(1_100), 6, 'the count plus one queued here since');
  assert.equal(await positions.depth(1_251), 9, 'read again once older than maxAgeMs: the changes are in it');
  assert.equal(countReads, 2);
  for (let i = 0; i < 12; i++) positions.noteQueued(-1);
  assert.equal(await positions.depth(1_300), 0, 'never below zero');
});
