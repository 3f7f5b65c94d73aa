import type { BookingRow, StoreQueries } from '@reflow/db';
import type { Move, Plan, Unresolved as SolverUnresolved } from '@reflow/solver';
import { PermanentTaskError } from '@reflow/tasks';
import { confirmedAround } from './slot-conflicts.ts';
import type { Snapshot } from './snapshot.ts';

/** The solver's reasons, plus `changed`: the booking was edited while the plan was being made. */
export type Unresolved = Omit<SolverUnresolved, 'code'> & { code: SolverUnresolved['code'] | 'changed' };

export interface Applied {
  moves: Move[];
  unresolved: Unresolved[];
}

/**
 * Test-only fault injection (off unless a test passes it): called after each move is written,
 * inside the apply transaction, so a crash test can kill the process half way through an apply.
 */
export interface ApplyHooks {
  afterMoveWritten?(written: number): void;
}

/**
 * Writes a plan; call inside the transaction that also records the task's terminal state (`tx`), so
 * a month is never half moved. Every move is re-checked against the bookings as they are now, read
 * under a row lock: a booking edited since the snapshot, or a target slot taken meanwhile, is
 * reported, never overwritten.
 */
export async function applyPlan(
  taskId: string,
  plan: Plan,
  snapshot: Pick<Snapshot, 'versions' | 'generation'>,
  tx: StoreQueries,
  hooks: ApplyHooks = {},
): Promise<Applied> {
  // Booking versions restart when the site is re-imported: same id and version may be another booking.
  // Read under a lock an import's write waits for, so no import can commit between this check and COMMIT.
  const generation = await tx.site.lockedGeneration();
  if (generation !== snapshot.generation)
    throw new PermanentTaskError(
      'The site was re-imported after this reflow read it; nothing was applied. Run the reflow again.',
      -32602,
      { code: 'RFL_SITE_REPLACED', readGeneration: snapshot.generation, siteGeneration: generation ?? null },
    );
  // The bookings the plan touches, locked until the transaction ends (PostgreSQL row locks): no other
  // node can edit one between this re-check and the write.
  const now = await tx.now();
  const locked = new Map(
    (await tx.bookings.getForUpdate([...plan.unresolved, ...plan.moves].map((b) => b.bookingId))).map((b) => [b.id, b]),
  );
  const unresolved: Unresolved[] = [];
  const unchanged = (row: BookingRow | undefined, id: string): row is BookingRow =>
    row !== undefined && row.version === snapshot.versions[id] && row.status === 'confirmed';
  const changed = (bookingId: string): Unresolved => ({
    bookingId,
    code: 'changed',
    reason:
      'The booking was changed or cancelled after the reflow read it (while solving or awaiting approval); it was left as it is now',
  });

  // Bookings the plan could not move vacate their slot first: they need rebooking, for the solver's
  // reason. One edited meanwhile is left as it is now, and reported as changed: that reason is stale.
  for (const u of plan.unresolved) {
    const current = locked.get(u.bookingId);
    if (unchanged(current, u.bookingId)) {
      await tx.bookings.setStatus(u.bookingId, current.version, 'needs_rebooking');
      unresolved.push(u);
    } else unresolved.push(changed(u.bookingId));
  }

  let moving: { move: Move; current: BookingRow; end: number }[] = [];
  for (const move of plan.moves) {
    const current = locked.get(move.bookingId);
    if (!unchanged(current, move.bookingId)) {
      unresolved.push(changed(move.bookingId));
      continue;
    }
    moving.push({ move, current, end: move.toStart + (current.endAt - current.startAt) });
  }

  // A target slot may only overlap bookings that are themselves moving away. A move dropped here
  // keeps its booking where it is, which may block another move in turn: repeat until none drops.
  // Nothing is written until the loop ends, so the bookings it checks against are read once.
  const firstConflict = await confirmedAround(
    moving.map(({ move, end }) => ({ roomId: move.toRoom, start: move.toStart, end })),
    tx,
  );
  for (let dropped = true; dropped;) {
    dropped = false;
    const movingIds = new Set(moving.map((m) => m.move.bookingId));
    moving = moving.filter(({ move, end }) => {
      const conflict = firstConflict({ roomId: move.toRoom, start: move.toStart, end }, movingIds);
      if (!conflict) return true;
      dropped = true;
      unresolved.push({
        bookingId: move.bookingId,
        code: 'rooms_busy',
        reason: `Its planned slot in ${move.toRoom} was taken by ${conflict.id} after the reflow read the month; rebook it or run the reflow again`,
      });
      return false;
    });
  }

  // Out of their slots first: the database refuses two confirmed bookings overlapping in a room after
  // every statement, and a move may land where another moving booking still sits.
  await tx.bookings.vacate(moving.map(({ move }) => move.bookingId));
  const moves: Move[] = [];
  for (const { move, current, end } of moving) {
    if (
      !(await tx.bookings.move(move.bookingId, current.version, {
        roomId: move.toRoom,
        startAt: move.toStart,
        endAt: end,
      }))
    )
      throw new Error(`Booking ${move.bookingId} changed inside the apply transaction`);
    await tx.audit.recordMove({ taskId, ...move, appliedAt: now });
    moves.push(move);
    hooks.afterMoveWritten?.(moves.length);
  }

  for (const u of unresolved) {
    // A move dropped for a taken slot still has to leave the offline room: it needs rebooking.
    if (u.code !== 'rooms_busy') continue;
    const current = await tx.bookings.get(u.bookingId);
    if (unchanged(current, u.bookingId)) await tx.bookings.setStatus(u.bookingId, current.version, 'needs_rebooking');
  }
  for (const u of unresolved)
    await tx.audit.recordUnresolved({
      taskId,
      bookingId: u.bookingId,
      code: u.code,
      reason: u.reason,
      recordedAt: now,
    });
  return { moves, unresolved };
}
