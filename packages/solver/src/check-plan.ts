// An independent feasibility check of a plan against a problem, returning every violation found
// (empty when the plan is sound). The reflow package re-runs it before applying a plan, so it
// re-derives everything from the problem and trusts nothing the plan says about itself.
import { insideOne, isoMinute, MINUTE_MS, overlaps, SLOT_MINUTES } from './intervals.ts';
import { isAffected } from './instance.ts';
import { seriesSplit } from './series-rooms.ts';
import type { Move, Plan, Problem, SolverBooking, SolverRoom } from './types.ts';

interface Placed {
  move: Move;
  start: number;
  end: number;
}

export function checkPlan(problem: Problem, plan: Plan): string[] {
  const violations: string[] = [];
  const bookings = new Map(problem.bookings.map((b) => [b.id, b]));
  const rooms = new Map(problem.rooms.map((r) => [r.id, r]));
  const placed: Placed[] = [];
  const seen = new Set<string>();
  for (const move of plan.moves) {
    const booking = bookings.get(move.bookingId);
    if (!booking) {
      violations.push(`${move.bookingId}: moved, but no such booking`);
      continue;
    }
    if (seen.has(booking.id)) violations.push(`${booking.id}: appears more than once in the plan`);
    seen.add(booking.id);
    const room = rooms.get(move.toRoom);
    if (!room) {
      violations.push(`${booking.id}: moved to unknown room ${move.toRoom}`);
      continue;
    }
    const start = move.toStart;
    const end = start + (booking.end - booking.start);
    violations.push(...checkMove(problem, booking, room, move, start, end));
    placed.push({ move, start, end });
  }
  violations.push(...checkClashes(problem, placed), ...checkBookkeeping(problem, plan, seen));
  return violations;
}

function checkMove(
  problem: Problem,
  b: SolverBooking,
  room: SolverRoom,
  move: Move,
  start: number,
  end: number,
): string[] {
  const out: string[] = [];
  const say = (text: string) => out.push(`${b.id}: ${text}`);
  if (!isAffected(problem, b)) say('is not affected by the outage but is moved');
  if (move.fromRoom !== b.roomId || move.fromStart !== b.start) say('move does not start from the booking as it is');
  const shift = (start - b.start) / MINUTE_MS;
  if (!Number.isInteger(shift) || shift % SLOT_MINUTES !== 0)
    say(`shift of ${shift} min is not a multiple of ${SLOT_MINUTES}`);
  if (Math.abs(shift) > b.flexMinutes) say(`shift of ${shift} min exceeds its flex of ${b.flexMinutes} min`);
  if (move.shiftMinutes !== shift) say(`shiftMinutes says ${move.shiftMinutes} but the move shifts ${shift} min`);
  if (room.capacity < b.attendees) say(`${room.id} holds ${room.capacity}, booking needs ${b.attendees}`);
  const missing = b.requiredFeatures.filter((f) => !room.features.includes(f));
  if (missing.length > 0) say(`${room.id} lacks ${missing.join(', ')}`);
  const open = [...room.open].sort((x, y) => x.start - y.start);
  if (!insideOne(open, start, end)) say(`${room.id} is not open throughout ${isoMinute(start)}–${isoMinute(end)}`);
  if (problem.offlineRooms.includes(room.id) && overlaps({ start, end }, problem.window)) {
    say(`${room.id} is offline during ${isoMinute(start)}–${isoMinute(end)}`);
  }
  return out;
}

/** Overlaps with bookings that stay put, and between the plan's own placements. */
function checkClashes(problem: Problem, placed: Placed[]): string[] {
  const out: string[] = [];
  for (const p of placed) {
    for (const other of problem.bookings) {
      if (other.roomId === p.move.toRoom && !isAffected(problem, other) && overlaps(p, other)) {
        out.push(`${p.move.bookingId}: overlaps booking ${other.id} in ${other.roomId}`);
      }
    }
  }
  for (let i = 0; i < placed.length; i++) {
    for (let j = i + 1; j < placed.length; j++) {
      const [a, b] = [placed[i], placed[j]];
      if (a.move.toRoom === b.move.toRoom && overlaps(a, b)) {
        out.push(`${a.move.bookingId}: overlaps moved booking ${b.move.bookingId} in ${a.move.toRoom}`);
      }
    }
  }
  return out;
}

/** Every affected booking accounted for exactly once, and the totals and claims consistent. */
function checkBookkeeping(problem: Problem, plan: Plan, moved: Set<string>): string[] {
  const out: string[] = [];
  const affected = problem.bookings.filter((b) => isAffected(problem, b));
  const unresolved = new Set<string>();
  for (const u of plan.unresolved) {
    if (moved.has(u.bookingId) || unresolved.has(u.bookingId)) out.push(`${u.bookingId}: listed more than once`);
    unresolved.add(u.bookingId);
  }
  for (const b of affected) {
    if (!moved.has(b.id) && !unresolved.has(b.id)) out.push(`${b.id}: affected but neither moved nor unresolved`);
  }
  if (plan.affected !== affected.length)
    out.push(`plan counts ${plan.affected} affected bookings, problem has ${affected.length}`);
  const shift = plan.moves.reduce((sum, m) => sum + Math.abs(m.shiftMinutes), 0);
  if (plan.totalShiftMinutes !== shift)
    out.push(`totalShiftMinutes is ${plan.totalShiftMinutes}, moves add up to ${shift}`);
  if (plan.movedBound < plan.moves.length)
    out.push(`movedBound ${plan.movedBound} is below the ${plan.moves.length} moves`);
  if (plan.optimal.moved && plan.movedBound !== plan.moves.length) {
    out.push(`claims an optimal move count but movedBound is ${plan.movedBound}, not ${plan.moves.length}`);
  }
  if (plan.optimal.shift && !plan.optimal.moved) out.push('claims optimal shift without optimal moves');
  if (plan.optimal.series && !plan.optimal.shift) out.push('claims an optimal series split without optimal shift');
  const byId = new Map(problem.bookings.map((b) => [b.id, b]));
  const split = seriesSplit(
    plan.moves.map((m) => ({ seriesId: byId.get(m.bookingId)?.seriesId ?? null, toRoom: m.toRoom })),
  );
  if (plan.seriesSplit !== split) out.push(`seriesSplit is ${plan.seriesSplit}, moves split series ${split} times`);
  return out;
}
