// Is the reflow interesting but mostly possible? A greedy reflow (a lower bound on what the
// real solver moves) must move most of the 142, and each kind of unresolved booking must occur.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEMO_SCENARIO, DEMO_SITE_PATH, readSiteFile } from '../index.ts';
import { greedyReflow } from './greedy-reflow.ts';

const site = readSiteFile(DEMO_SITE_PATH);
const result = greedyReflow(site, [...DEMO_SCENARIO.offline_rooms], DEMO_SCENARIO.from, DEMO_SCENARIO.to);
const titleOf = (id: string) => site.bookings.find((b) => b.id === id)!.title;
const unresolvedTitles = (kind: string) =>
  [...result.unresolved].filter(([, k]) => k === kind).map(([id]) => titleOf(id));

test('142 affected; greedy moves roughly 130–140 of them', () => {
  assert.equal(result.affected.length, 142);
  assert.ok(result.moved.size >= 128 && result.moved.size <= 140, `greedy moved ${result.moved.size}`);
  assert.ok(result.movableAlone <= 140, `${result.movableAlone} could move on their own`);
});

test('(a) the tape sessions have no suitable room', () => {
  assert.deepEqual(unresolvedTitles('no_suitable_room').sort(), [
    'Analog tape session — The Marrows',
    'Tape transfer — Low Orbit archive reels',
  ]);
});

test('(b) the piano trio finds every suitable room busy', () => {
  assert.ok(unresolvedTitles('rooms_busy').includes('Piano trio recording — Aurora Trio'));
});

test('(c) the three audiobook narrations compete for one slot: at most one moves', () => {
  const narrations = result.affected.filter((b) => b.title.startsWith('Audiobook narration'));
  assert.equal(narrations.length, 3);
  assert.equal(narrations.filter((b) => result.moved.has(b.id)).length, 1);
  assert.ok(narrations.every((b) => result.moved.has(b.id) || result.unresolved.get(b.id) === 'outcompeted'));
});

test('no two greedy placements overlap in a room', () => {
  const placed = [...result.moved.values()].sort((x, y) => x.roomId.localeCompare(y.roomId) || x.start - y.start);
  for (let i = 1; i < placed.length; i++) {
    if (placed[i].roomId === placed[i - 1].roomId) assert.ok(placed[i].start >= placed[i - 1].end);
  }
});
