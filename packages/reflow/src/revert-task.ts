import type { BookingRow, Store, StoreQueries } from '@reflow/db';
import { PermanentTaskError, type TaskHandler, type TaskOutcome } from '@reflow/tasks';
import { z } from 'zod';
import { humanRange, toLocalIso } from './local-time.ts';
import { DECISION, OPERATOR, readDecision, type OperatorApprovalRequest } from './operator-approval.ts';
import type { ReflowInput } from './reflow-args.ts';
import { operatorDecisionSchema } from './reflow-result.ts';
import { confirmedAround } from './slot-conflicts.ts';
import { reflowScope } from './snapshot.ts';

// Undo when the room comes back: each booking a reflow moved goes back to its original room and
// time if it is still where the reflow put it and that slot is free; each it marked
// needs_rebooking is confirmed again in its slot if free. One transaction with the task's
// completion (fenced, all or nothing), audited like an apply. What cannot go back is reported.

export const REVERT_KIND = 'revert_reflow';

export interface RevertInput {
  reflowTaskId: string;
  /** The reverted reflow's request: the days it holds, so an overlapping reflow waits for the revert. */
  reflow: ReflowInput;
  /**
   * The version each booking had right after the reflow wrote it (from its result): one written
   * since is left as it is. Absent for a reflow applied before results recorded them.
   */
  applied?: Record<string, number>;
  /** APPROVAL=operator and a client asked: nothing is put back before an operator approves. */
  operatorApproval?: boolean;
}

export const revertResultSchema = z.object({
  reflowTaskId: z.string().describe('The reflow that was reverted'),
  restored: z.number().int().describe('Bookings put back where they were before the reflow'),
  notRestored: z.number().int().describe('Bookings that could not be put back (see notRestoredBookings)'),
  restoredBookings: z.array(
    z.object({ bookingId: z.string(), title: z.string(), room: z.string(), start: z.string(), was: z.string() }),
  ),
  notRestoredBookings: z.array(
    z.object({ bookingId: z.string(), title: z.string(), code: z.string(), reason: z.string() }),
  ),
  operatorDecision: operatorDecisionSchema.optional().describe('APPROVAL=operator: who approved this revert, and when'),
});
export type RevertResult = z.infer<typeof revertResultSchema>;

interface Restore {
  bookingId: string;
  version: number;
  roomId: string;
  start: number;
  end: number;
  /** Moved by the reflow (it goes back), or marked needs_rebooking (it is confirmed again in place). */
  how: 'move' | 'confirm';
  from?: { roomId: string; start: number };
  title: string;
}

export function revertTaskHandler(options: { store: Store }): TaskHandler<RevertInput> {
  const { store } = options;
  return {
    kind: REVERT_KIND,
    describe: (input) =>
      `Queued: revert reflow ${input.reflowTaskId} (${input.reflow.offlineRooms.join(', ')}, ${humanRange(input.reflow.from, input.reflow.to)})`,
    scope: (input) => reflowScope(input.reflow, store),
    async run(input, ctx) {
      const answer = ctx.resumed?.responses[DECISION];
      if (input.operatorApproval && answer === undefined) return awaitOperatorForRevert(input);
      const decision = answer === undefined ? undefined : readDecision(answer);
      if (decision) {
        const said = `${decision.decision === 'approved' ? 'Approved' : 'Rejected'} by operator ${decision.by}${decision.reason ? `: ${decision.reason}` : ''}`;
        ctx.progress(said, decision);
        // Rejected: the revert fails, so the reflow stays revertible (a completed revert would count as done).
        if (decision.decision === 'rejected')
          throw new PermanentTaskError(`RFL_REVERT_REJECTED: ${said}; nothing was put back`, -32603, {
            code: 'RFL_REVERT_REJECTED',
            operatorDecision: decision,
          });
      }
      ctx.progress(`Putting back what reflow ${input.reflowTaskId} moved`);
      return {
        status: 'completed',
        commit: async (tx) => {
          const result = {
            ...(await revert(ctx.taskId, input, tx)),
            ...(decision ? { operatorDecision: decision } : {}),
          };
          const text = `Put back ${result.restored} booking(s); ${result.notRestored} could not be (reflow ${input.reflowTaskId}).`;
          const lines = [text, ...result.notRestoredBookings.slice(0, 10).map((u) => `- ${u.bookingId}: ${u.reason}`)];
          return {
            result: { content: [{ type: 'text', text: lines.join('\n') }], structuredContent: result },
            message: text,
          };
        },
      };
    },
  };
}

/** APPROVAL=operator: a client's revert moves bookings, so it waits for an operator like its reflow did. */
function awaitOperatorForRevert(input: RevertInput): TaskOutcome {
  const message = `Waiting for an operator to approve: revert reflow ${input.reflowTaskId} (${input.reflow.offlineRooms.join(', ')}, ${humanRange(input.reflow.from, input.reflow.to)})`;
  const request: OperatorApprovalRequest = { kind: 'operator_approval', message };
  return { status: 'input_required', awaiting: OPERATOR, requests: { [DECISION]: request }, message };
}

async function revert(taskId: string, input: RevertInput, tx: StoreQueries): Promise<RevertResult> {
  const { reflowTaskId } = input;
  // Written since the reflow: another move, a new end or title, a status change.
  const editedSince = (b: BookingRow) => input.applied?.[b.id] !== undefined && b.version !== input.applied[b.id];
  const at = await tx.now();
  const zone = (await tx.site.getSite())?.timezone ?? 'UTC';
  const notRestored: RevertResult['notRestoredBookings'] = [];
  const candidates: Restore[] = [];
  const moves = await tx.audit.movesOf(reflowTaskId);
  const unresolved = await tx.audit.unresolvedOf(reflowTaskId);
  if (moves.length === 0 && unresolved.length === 0)
    throw new PermanentTaskError(`Reflow ${reflowTaskId} left no audit of moves to put back`);
  // Every booking it may put back, locked until the transaction ends (PostgreSQL row locks).
  const locked = new Map(
    (await tx.bookings.getForUpdate([...moves, ...unresolved].map((b) => b.bookingId))).map((b) => [b.id, b]),
  );
  for (const m of moves) {
    const b = locked.get(m.bookingId);
    if (!b || b.status !== 'confirmed' || b.roomId !== m.toRoom || b.startAt !== m.toStart || editedSince(b)) {
      notRestored.push({
        bookingId: m.bookingId,
        title: b?.title ?? m.bookingId,
        code: 'changed',
        reason: 'It was moved, cancelled or edited after the reflow; it was left as it is now',
      });
      continue;
    }
    candidates.push({
      bookingId: b.id,
      version: b.version,
      roomId: m.fromRoom,
      start: m.fromStart,
      end: m.fromStart + (b.endAt - b.startAt),
      how: 'move',
      from: { roomId: b.roomId, start: b.startAt },
      title: b.title,
    });
  }
  for (const u of unresolved) {
    if (u.code === 'changed') continue; // the reflow left it alone
    const b = locked.get(u.bookingId);
    if (!b || b.status !== 'needs_rebooking' || editedSince(b)) {
      notRestored.push({
        bookingId: u.bookingId,
        title: b?.title ?? u.bookingId,
        code: 'changed',
        reason:
          'It is no longer waiting for rebooking (rebooked, cancelled or edited after the reflow); it was left as it is now',
      });
      continue;
    }
    candidates.push({ ...b, bookingId: b.id, start: b.startAt, end: b.endAt, how: 'confirm' });
  }

  // An original slot may only overlap bookings that are themselves going back (leaving it); drop
  // until stable, as an apply does, since a booking that stays may block another in turn.
  const conflictIn = await confirmedAround(
    candidates.map((c) => ({ roomId: c.roomId, start: c.start, end: c.end })),
    tx,
  );
  let going = candidates;
  for (let dropped = true; dropped;) {
    dropped = false;
    const leaving = new Set(going.filter((c) => c.how === 'move').map((c) => c.bookingId));
    going = going.filter((c) => {
      const conflict = conflictIn({ roomId: c.roomId, start: c.start, end: c.end }, leaving);
      if (!conflict || conflict.id === c.bookingId) return true;
      dropped = true;
      notRestored.push({
        bookingId: c.bookingId,
        title: c.title,
        code: 'slot_taken',
        reason: `Its original slot in ${c.roomId} is now taken by ${conflict.id}; it was left where it is`,
      });
      return false;
    });
  }

  // The bookings going back leave their current slots first: the database refuses two confirmed
  // bookings overlapping in a room after every statement, and one may return where another still sits.
  await tx.bookings.vacate(going.filter((c) => c.how === 'move').map((c) => c.bookingId));
  const restored: RevertResult['restoredBookings'] = [];
  for (const c of going) {
    const ok =
      c.how === 'move'
        ? await tx.bookings.move(c.bookingId, c.version, { roomId: c.roomId, startAt: c.start, endAt: c.end })
        : await tx.bookings.setStatus(c.bookingId, c.version, 'confirmed');
    if (!ok) throw new Error(`Booking ${c.bookingId} changed inside the revert transaction`);
    if (c.how === 'move')
      await tx.audit.recordMove({
        taskId,
        bookingId: c.bookingId,
        fromRoom: c.from!.roomId,
        toRoom: c.roomId,
        fromStart: c.from!.start,
        toStart: c.start,
        shiftMinutes: Math.round((c.start - c.from!.start) / 60_000),
        appliedAt: at,
      });
    restored.push({
      bookingId: c.bookingId,
      title: c.title,
      room: c.roomId,
      start: toLocalIso(c.start, zone),
      was: c.how === 'move' ? `${c.from!.roomId} ${toLocalIso(c.from!.start, zone)}` : 'needs rebooking',
    });
  }
  for (const u of notRestored)
    await tx.audit.recordUnresolved({ taskId, bookingId: u.bookingId, code: u.code, reason: u.reason, recordedAt: at });
  return {
    reflowTaskId,
    restored: restored.length,
    notRestored: notRestored.length,
    restoredBookings: restored,
    notRestoredBookings: notRestored,
  };
}
