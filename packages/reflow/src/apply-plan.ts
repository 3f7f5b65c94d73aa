import type { Queries } from '@reflow/db';
import type { Move, Plan, Unresolved as SolverUnresolved } from '@reflow/solver';
import type { Snapshot } from './snapshot.ts';

/** The solver's reasons, plus `changed`: the booking was edited while the plan was being made. */
export type Unresolved = Omit<SolverUnresolved, 'code'> & { code: SolverUnresolved['code'] | 'changed' };

export interface Applied {
  moves: Move[];
  unresolved: Unresolved[];
}

/**
 * Writes a plan; call inside the transaction that also records the task's terminal state, so a
 * month is never half moved. Every move is re-checked against the bookings as they are now: a
 * booking edited since the snapshot, or a target slot taken meanwhile, is reported, never overwritten.
 */
export function applyPlan(taskId: string, plan: Plan, snapshot: Pick<Snapshot, 'bookings' | 'versions'>, queries: Queries, now: number): Applied {
  const affectedIds = [...plan.moves.map((m) => m.bookingId), ...plan.unresolved.map((u) => u.bookingId)];
  const moves: Move[] = [];
  const unresolved: Unresolved[] = [];
  for (const move of plan.moves) {
    const before = snapshot.bookings[move.bookingId];
    const duration = before.endAt - before.startAt;
    const current = queries.bookings.get(move.bookingId);
    if (!current || current.version !== snapshot.versions[move.bookingId] || current.status !== 'confirmed') {
      unresolved.push({ bookingId: move.bookingId, code: 'changed', reason: 'The booking was changed or cancelled after the reflow read it (while solving or awaiting approval); it was left as it is now' });
      continue;
    }
    const conflict = queries.bookings.firstConflict(move.toRoom, move.toStart, move.toStart + duration, affectedIds);
    if (conflict) {
      unresolved.push({
        bookingId: move.bookingId,
        code: 'rooms_busy',
        reason: `Its planned slot in ${move.toRoom} was taken by ${conflict.id} after the reflow read the month; rebook it or run the reflow again`,
      });
      continue;
    }
    queries.bookings.move(move.bookingId, current.version, { roomId: move.toRoom, startAt: move.toStart, endAt: move.toStart + duration });
    queries.audit.recordMove({ taskId, ...move, appliedAt: now });
    moves.push(move);
  }
  for (const u of [...plan.unresolved, ...unresolved]) {
    const current = queries.bookings.get(u.bookingId);
    const unchanged = current && current.version === snapshot.versions[u.bookingId] && current.status === 'confirmed';
    if (unchanged) queries.bookings.setStatus(u.bookingId, current.version, 'needs_rebooking');
    queries.audit.recordUnresolved({ taskId, bookingId: u.bookingId, code: u.code, reason: u.reason, recordedAt: now });
  }
  return { moves, unresolved: [...plan.unresolved, ...unresolved] };
}
