// Reads a reflow's CSV and ICS exports back with libraries other than the ones that wrote them
// (csv-parse, ical.js) and checks they list exactly the task's moves.
import assert from 'node:assert/strict';
import { parse } from 'csv-parse/sync';
import ICAL from 'ical.js';

interface Move {
  bookingId: string;
  toRoom: string;
  toStart: string;
  fromRoom: string;
}
interface Result {
  moves: Move[];
  unresolvedBookings: { bookingId: string; reason: string }[];
}

/** Every moved booking once, at its new room (by name) and local time; every unresolved one with its reason. */
export function assertCsvListsMoves(csv: string, result: Result, roomNames: Map<string, string>): void {
  const rows: Record<string, string>[] = parse(csv, { columns: true });
  const moved = rows.filter((r) => r.change === 'moved');
  assert.deepEqual(moved.map((r) => r.booking).sort(), result.moves.map((m) => m.bookingId).sort());
  for (const m of result.moves) {
    const row = moved.find((r) => r.booking === m.bookingId)!;
    assert.equal(row.new_room, roomNames.get(m.toRoom));
    assert.equal(row.old_room, roomNames.get(m.fromRoom));
    assert.equal(row.new_start, m.toStart.slice(0, 16).replace('T', ' '), 'local wall-clock time');
    assert.ok(row.customer.length > 0, 'names the customer');
  }
  const others = rows.filter((r) => r.change !== 'moved');
  assert.deepEqual(others.map((r) => r.booking).sort(), result.unresolvedBookings.map((u) => u.bookingId).sort());
  for (const r of others) assert.ok(r.reason.length > 0);
}

/** One VEVENT per moved booking, starting at its new instant, located in its new room. */
export function assertIcsListsMoves(ics: string, result: Result, roomNames: Map<string, string>): void {
  const calendar = new ICAL.Component(ICAL.parse(ics));
  const events = calendar.getAllSubcomponents('vevent').map((v) => new ICAL.Event(v));
  assert.equal(events.length, result.moves.length);
  for (const m of result.moves) {
    const event = events.find((e) => e.uid.endsWith(`-${m.bookingId}@studio-reflow`));
    assert.ok(event, `an event for ${m.bookingId}`);
    assert.equal(event.startDate.toJSDate().getTime(), Date.parse(m.toStart));
    assert.ok(event.endDate.toJSDate().getTime() > Date.parse(m.toStart));
    assert.equal(event.location, roomNames.get(m.toRoom));
  }
}
