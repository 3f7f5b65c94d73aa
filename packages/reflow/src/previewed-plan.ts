import type { BookingRow, Queries } from '@reflow/db';
import type { Plan } from '@reflow/solver';
import { PermanentTaskError } from '@reflow/tasks';
import { parseInstant } from './local-time.ts';
import type { ReflowResult } from './reflow-result.ts';
import type { Snapshot } from './snapshot.ts';

// "Apply exactly this plan": a completed dry run's moves, applied as the operator saw them instead
// of solving again. The dry run kept no booking versions, so "as previewed" is checked by place:
// a booking still confirmed where the preview saw it is taken at its version now (and re-checked
// like any apply: target slots still free); one moved, cancelled or rebooked since is reported
// `changed` and left as it is.

/** Never a booking's version: makes the apply report the booking as changed. */
const CHANGED = -1;

export function previewedPlan(
  preview: ReflowResult,
  queries: Queries,
): { plan: Plan; kept: Pick<Snapshot, 'timezone' | 'versions' | 'bookings' | 'generation'> } {
  const site = queries.site.getSite();
  if (!site) throw new PermanentTaskError('No site is imported: there is nothing to apply the plan to');
  const instant = (text: string) => {
    const ms = parseInstant(text);
    if (ms === undefined) throw new PermanentTaskError(`The previewed plan holds a time without an offset: ${text}`);
    return ms;
  };
  const moves = preview.moves.map((m) => ({
    bookingId: m.bookingId,
    fromRoom: m.fromRoom,
    toRoom: m.toRoom,
    fromStart: instant(m.fromStart),
    toStart: instant(m.toStart),
    shiftMinutes: m.shiftMinutes,
  }));
  const versions: Record<string, number> = {};
  const bookings: Record<string, BookingRow> = {};
  const keep = (id: string, stillAsPreviewed: (b: BookingRow) => boolean) => {
    const b = queries.bookings.get(id);
    if (b) bookings[id] = b;
    versions[id] = b && b.status === 'confirmed' && stillAsPreviewed(b) ? b.version : CHANGED;
  };
  for (const m of moves) keep(m.bookingId, (b) => b.roomId === m.fromRoom && b.startAt === m.fromStart);
  // An unresolved booking stayed in its offline room: as previewed while it is still confirmed there.
  for (const u of preview.unresolvedBookings) keep(u.bookingId, (b) => preview.offlineRooms.includes(b.roomId));
  const plan = {
    affected: preview.affected,
    moves,
    unresolved: preview.unresolvedBookings.map((u) => ({
      bookingId: u.bookingId,
      code: u.code as Plan['unresolved'][number]['code'],
      reason: u.reason,
    })),
    optimal: preview.optimal,
    movedBound: preview.movedBound,
    totalShiftMinutes: preview.totalShiftMinutes,
  } as Plan;
  return { plan, kept: { timezone: site.timezone, generation: site.generation, versions, bookings } };
}
