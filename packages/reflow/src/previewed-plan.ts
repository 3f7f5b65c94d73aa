import type { BookingRow, StoreQueries } from '@reflow/db';
import type { Plan } from '@reflow/solver';
import { PermanentTaskError } from '@reflow/tasks';
import { parseInstant } from './local-time.ts';
import type { ReflowResult } from './reflow-result.ts';
import type { Snapshot } from './snapshot.ts';

// "Apply exactly this plan": a completed dry run's moves, applied as the operator saw them instead
// of solving again. The dry run's stored result carries, in its `_meta`, the site generation and
// the version of every booking its plan touches, so "as previewed" means the same booking, unedited
// (version), still confirmed where the preview saw it; one edited, moved, cancelled or rebooked
// since, or a site re-imported since, is reported `changed` (or refused by the generation check)
// and left as it is. Every apply re-check (target slots still free) runs as for any apply.

/** The `_meta` key of a dry run's result that holds what the preview saw. */
export const PREVIEW_META = 'io.github.studio-reflow/preview';

type Seen = Pick<Snapshot, 'generation' | 'versions'>;

/** What a dry run keeps beside its result, so the plan can later be applied exactly as previewed. */
export function previewMeta(kept: Seen) {
  return { [PREVIEW_META]: { generation: kept.generation, versions: kept.versions } };
}

export interface StoredPreview {
  structuredContent?: ReflowResult;
  _meta?: Record<string, unknown>;
}

/** The generation and versions a dry run saw; undefined for a dry run stored without them. */
export function readPreviewMeta(stored: StoredPreview): Seen | undefined {
  const seen = stored._meta?.[PREVIEW_META] as Partial<Seen> | undefined;
  return typeof seen?.generation === 'number' && seen.versions ? (seen as Seen) : undefined;
}

/** Never a booking's version: makes the apply report the booking as changed. */
const CHANGED = -1;

export async function previewedPlan(
  preview: ReflowResult,
  seen: Seen | undefined,
  store: StoreQueries,
): Promise<{ plan: Plan; kept: Pick<Snapshot, 'timezone' | 'versions' | 'bookings' | 'generation'> }> {
  const site = await store.site.getSite();
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
  const keep = async (id: string, stillAsPreviewed: (b: BookingRow) => boolean) => {
    const b = await store.bookings.get(id);
    if (b) bookings[id] = b;
    const unedited = b !== undefined && (seen === undefined || seen.versions[id] === b.version);
    versions[id] = b && unedited && b.status === 'confirmed' && stillAsPreviewed(b) ? b.version : CHANGED;
  };
  for (const m of moves) await keep(m.bookingId, (b) => b.roomId === m.fromRoom && b.startAt === m.fromStart);
  // An unresolved booking stayed in its offline room: as previewed while it is still confirmed there.
  for (const u of preview.unresolvedBookings) await keep(u.bookingId, (b) => preview.offlineRooms.includes(b.roomId));
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
  // The generation the preview saw: a site re-imported since fails the apply's generation check.
  const generation = seen?.generation ?? site.generation;
  return { plan, kept: { timezone: site.timezone, generation, versions, bookings } };
}
