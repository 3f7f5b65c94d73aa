import type { BookingRow, StoreQueries } from '@reflow/db';

export interface Slot {
  roomId: string;
  start: number;
  end: number;
}

/**
 * The confirmed bookings in the target rooms of an apply, read once inside its transaction, so each
 * target slot is checked in memory rather than by one query per move. Read after the plan's
 * unresolved bookings vacated their slots. Nothing that could place a booking in those slots commits
 * meanwhile: on SQLite the write lock keeps every writer out; on PostgreSQL the apply holds its
 * scope's day locks (the task's holdScope), which every overlapping apply and claim takes too, and
 * a booking written behind the service is refused by the exclusion constraint at the latest.
 */
export async function confirmedAround(
  slots: Slot[],
  tx: StoreQueries,
): Promise<(slot: Slot, ignore: ReadonlySet<string>) => BookingRow | undefined> {
  const byRoom = new Map<string, BookingRow[]>();
  if (slots.length > 0) {
    let from = Infinity;
    let to = -Infinity;
    for (const s of slots) [from, to] = [Math.min(from, s.start), Math.max(to, s.end)];
    const rows = await tx.bookings.overlapping({
      from,
      to,
      roomIds: [...new Set(slots.map((s) => s.roomId))],
      statuses: ['confirmed'],
    });
    // Rows come in start order, so each room's list is sorted and a scan can stop at the slot's end.
    for (const row of rows) {
      const list = byRoom.get(row.roomId);
      if (list) list.push(row);
      else byRoom.set(row.roomId, [row]);
    }
  }
  /** The earliest confirmed booking overlapping the slot, other than the ones ignored. */
  return (slot, ignore) => {
    for (const row of byRoom.get(slot.roomId) ?? []) {
      if (row.startAt >= slot.end) return undefined;
      if (row.endAt > slot.start && !ignore.has(row.id)) return row;
    }
    return undefined;
  };
}
