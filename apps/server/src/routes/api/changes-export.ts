// What a completed reflow changed, for the people who booked: a CSV (one row per moved or
// unresolved booking) and an iCalendar file of the moved bookings at their new times.
import type { StoreQueries } from '@reflow/db';
import type { ReflowResult } from '@reflow/reflow';
import { stringify } from 'csv-stringify/sync';
import ical, { escape as escapeIcsText } from 'ical-generator';
import { DateTime } from 'luxon';

export const CSV_COLUMNS = [
  'booking',
  'customer',
  'title',
  'change',
  'old_room',
  'old_start',
  'new_room',
  'new_start',
  'shift_minutes',
  'reason',
] as const;

/** "2026-09-08 10:00" in the site's zone, from the result's local ISO time (which carries its offset). */
const local = (iso: string, zone: string) =>
  DateTime.fromISO(iso, { setZone: true }).setZone(zone).toFormat('yyyy-LL-dd HH:mm');

/** The bookings a result names, as they are now, by id. */
async function bookingsOf(result: ReflowResult, store: StoreQueries) {
  const ids = [...result.moves.map((m) => m.bookingId), ...result.unresolvedBookings.map((u) => u.bookingId)];
  const rows = await Promise.all(ids.map((id) => store.bookings.get(id)));
  return new Map(rows.filter((row) => row !== undefined).map((row) => [row.id, row]));
}

export async function changesCsv(result: ReflowResult, store: StoreQueries, zone: string): Promise<string> {
  const rooms = new Map((await store.site.listRooms()).map((r) => [r.id, r.name]));
  const bookings = await bookingsOf(result, store);
  const name = (id: string) => rooms.get(id) ?? id;
  const rows = [
    ...result.moves.map((m) => [
      m.bookingId,
      bookings.get(m.bookingId)?.customer ?? '',
      m.title,
      'moved',
      name(m.fromRoom),
      local(m.fromStart, zone),
      name(m.toRoom),
      local(m.toStart, zone),
      m.shiftMinutes,
      '',
    ]),
    ...result.unresolvedBookings.map((u) => {
      // It stayed where it was: its slot now is its old one.
      const booking = bookings.get(u.bookingId);
      return [
        u.bookingId,
        booking?.customer ?? '',
        u.title,
        u.code === 'changed' ? 'changed meanwhile' : 'needs rebooking',
        booking ? name(booking.roomId) : '',
        booking ? DateTime.fromMillis(booking.startAt, { zone }).toFormat('yyyy-LL-dd HH:mm') : '',
        '',
        '',
        '',
        u.reason,
      ];
    }),
  ];
  // OWASP's CSV-injection rule: a text cell a spreadsheet would evaluate (= + - @, a tab or CR
  // first) gets a leading ' (escape_formulas); csv-stringify leaves negative numbers as numbers.
  // A line feed or a full-width sign first is evaluated by some spreadsheets too: neutralised the same way.
  return stringify(rows, {
    header: true,
    columns: [...CSV_COLUMNS],
    escape_formulas: true,
    cast: { string: (value) => (/^[\n＝＋－＠]/.test(value) ? `'${value}` : value) },
  });
}

/** One event per moved booking, at its new room and time (UTC instants: any calendar program places them). */
export async function changesIcs(
  taskId: string,
  result: ReflowResult,
  store: StoreQueries,
  siteName: string,
): Promise<string> {
  const rooms = new Map((await store.site.listRooms()).map((r) => [r.id, r.name]));
  const bookings = await bookingsOf(result, store);
  const calendar = ical({
    // ical-generator escapes event text but writes the calendar's name (NAME, X-WR-CALNAME) as given.
    name: icsText(`${siteName}: bookings moved by reflow ${taskId}`),
    prodId: '//studio-reflow//changes//EN',
  });
  for (const m of result.moves) {
    const booking = bookings.get(m.bookingId);
    const start = DateTime.fromISO(m.toStart, { setZone: true });
    const minutes = booking ? (booking.endAt - booking.startAt) / 60_000 : 60;
    calendar.createEvent({
      id: `${taskId}-${m.bookingId}@studio-reflow`,
      start: start.toJSDate(),
      end: start.plus({ minutes }).toJSDate(),
      summary: plainText(m.title),
      location: plainText(rooms.get(m.toRoom) ?? m.toRoom),
      description: plainText(
        `Booking ${m.bookingId}${booking ? ` for ${booking.customer}` : ''} moved from ${rooms.get(m.fromRoom) ?? m.fromRoom} at ${m.fromStart}`,
      ),
    });
  }
  return calendar.toString();
}

/** Control characters RFC 5545 allows in no TEXT value (a tab is allowed; line breaks are escaped first). */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000A-\u001F\u007F]/g;

/** A TEXT value as RFC 5545 writes it: backslash, ; and , escaped, line breaks as \n, no control characters. */
const icsText = (text: string) => escapeIcsText(text, false).replace(CONTROL, '');

/** Control characters but the line feed, for the values ical-generator escapes itself. */
// eslint-disable-next-line no-control-regex
const CONTROL_BUT_LF = /[\u0000-\u0008\u000B-\u001F\u007F]/g;

/** For the values ical-generator escapes itself: line breaks kept (it escapes them), other control characters dropped. */
const plainText = (text: string) => text.replace(/\r\n?/g, '\n').replace(CONTROL_BUT_LF, '');
