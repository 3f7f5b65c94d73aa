// Property: whatever the generated campus, every plan the solver returns is feasible, checked
// here in the site's own wall clock (not only by checkPlan): each moved booking sits on one local
// day inside its room's opening hours, shifted on the 15-minute grid within its flex, in a room
// that fits it, is online then, and clashes with nothing — across the Europe/London clock change
// (Sunday 25 October 2026, when 01:00–02:00 happens twice).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DateTime } from 'luxon';
import { checkPlan, loadHighsEngine, solve, type Plan, type Problem } from '../src/index.ts';
import type { Scenario } from '@reflow/seed';
import { scenarioProblem } from '../bench/site-problem.ts';
import { smallScenario } from './generated-scenario.ts';

const MINUTE = 60_000;

function wallClockViolations(scenario: Scenario, problem: Problem, plan: Plan): string[] {
  const zone = scenario.site.site.timezone;
  const rooms = new Map(scenario.site.rooms.map((r) => [r.id, r]));
  const bookings = new Map(problem.bookings.map((b) => [b.id, b]));
  const out: string[] = [];
  const placed = new Map<string, { id: string; start: number; end: number }[]>();
  for (const b of problem.bookings) {
    const isAffected =
      problem.offlineRooms.includes(b.roomId) && b.start < problem.window.end && problem.window.start < b.end;
    if (!isAffected) placed.set(b.roomId, [...(placed.get(b.roomId) ?? []), { id: b.id, start: b.start, end: b.end }]);
  }
  for (const m of plan.moves) {
    const b = bookings.get(m.bookingId)!;
    const room = rooms.get(m.toRoom)!;
    const end = m.toStart + (b.end - b.start);
    const from = DateTime.fromMillis(m.toStart, { zone });
    const to = DateTime.fromMillis(end, { zone });
    const say = (what: string) => out.push(`${b.id} → ${room.id} ${from.toISO()}: ${what}`);
    if (from.toISODate() !== to.minus({ milliseconds: 1 }).toISODate()) say('spans two local days');
    if (
      from.toFormat('HH:mm') < room.opensAt ||
      to.toFormat('HH:mm') > room.closesAt ||
      to.toISODate() !== from.toISODate()
    )
      say('outside opening hours');
    const shift = (m.toStart - b.start) / MINUTE;
    if (shift % 15 !== 0 || Math.abs(shift) > b.flexMinutes)
      say(`shift ${shift} off the grid or beyond flex ${b.flexMinutes}`);
    if (room.capacity < b.attendees || !b.requiredFeatures.every((f) => room.features.includes(f)))
      say('room does not fit');
    if (problem.offlineRooms.includes(room.id) && m.toStart < problem.window.end && problem.window.start < end)
      say('room offline');
    const others = placed.get(room.id) ?? [];
    const clash = others.find((o) => o.start < end && m.toStart < o.end);
    if (clash) say(`clashes with ${clash.id}`);
    placed.set(room.id, [...others, { id: b.id, start: m.toStart, end }]);
  }
  return out;
}

test('every plan is feasible in wall-clock terms, across the October clock change', async () => {
  await loadHighsEngine();
  const crossesChange = fc.record({
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    first: fc.integer({ min: 22, max: 25 }),
    extra: fc.integer({ min: 0, max: 3 }),
    jsLpOnly: fc.boolean(),
  });
  fc.assert(
    fc.property(crossesChange, ({ seed, first, extra, jsLpOnly }) => {
      const window = { from: `2026-10-${first}`, to: `2026-10-${Math.max(25, first) + extra}` };
      const scenario = smallScenario(seed, window);
      const problem = scenarioProblem(scenario);
      const plan = solve(problem, { maxJsLpVariables: jsLpOnly ? 0 : 20 });
      assert.deepEqual(checkPlan(problem, plan), []);
      assert.deepEqual(wallClockViolations(scenario, problem, plan), []);
      assert.equal(plan.moves.length + plan.unresolved.length, plan.affected);
    }),
    { numRuns: 25, seed: 20261025 },
  );
});
