// The booking conditions both stores run, written once (either dialect's `bookings` columns).
import { sql, type SQL, type SQLWrapper } from 'drizzle-orm';

const list = (values: readonly string[]) =>
  sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  );

type BookingColumns = {
  id: SQLWrapper;
  roomId: SQLWrapper;
  status: SQLWrapper;
  startAt: SQLWrapper;
  endAt: SQLWrapper;
  version: SQLWrapper;
};

/**
 * The status of a booking taken out of its slot by `vacate` inside an apply, until `move` confirms it
 * in its new one. Never committed (the apply moves every booking it vacates), so never read outside.
 */
export const VACATED = 'moving';

/** What `vacate` takes out of its slot: the confirmed ones among `ids`. */
export const vacatableWhere = (b: BookingColumns, ids: readonly string[]): SQL =>
  sql`${b.id} in (${list(ids)}) and ${b.status} = 'confirmed'`;

/** The booking `id` still at the version a plan was made from (a write that finds another changes nothing). */
export const atVersionWhere = (b: BookingColumns, id: SQLWrapper | string, version: SQLWrapper | number): SQL =>
  sql`${b.id} = ${id} and ${b.version} = ${version}`;

/** What `move` may take: at its version, and confirmed or vacated by this apply. */
export const movableWhere = (b: BookingColumns, id: SQLWrapper | string, version: SQLWrapper | number): SQL =>
  sql`${atVersionWhere(b, id, version)} and ${b.status} in ('confirmed', ${VACATED})`;

/** Bookings whose [start, end) overlaps [from, to), optionally in some rooms and with given statuses. */
export function overlappingWhere(
  b: BookingColumns,
  range: { from: number; to: number; roomIds?: readonly string[]; statuses?: readonly string[] },
): SQL {
  const rooms = range.roomIds
    ? range.roomIds.length
      ? sql` and ${b.roomId} in (${list(range.roomIds)})`
      : sql` and false`
    : sql``;
  const statuses = range.statuses
    ? range.statuses.length
      ? sql` and ${b.status} in (${list(range.statuses)})`
      : sql` and false`
    : sql``;
  return sql`${b.startAt} < ${range.to} and ${b.endAt} > ${range.from}${rooms}${statuses}`;
}

/** The booking a move would collide with: confirmed, in the room, overlapping [start, end), not one of those moving with it. */
export function confirmedOverlap(
  b: BookingColumns,
  roomId: string,
  start: number,
  end: number,
  exclude: readonly string[],
): SQL {
  const others = exclude.length ? sql` and ${b.id} not in (${list(exclude)})` : sql``;
  return sql`${b.roomId} = ${roomId} and ${b.status} = 'confirmed' and ${b.startAt} < ${end} and ${b.endAt} > ${start}${others}`;
}
