// Turns a generated scenario (import format + outage) into the solver's snapshot, the way the
// reflow package reads one from SQLite: opening hours become instants per local day (luxon
// handles the clock change), the window runs local midnight to local midnight, and only
// confirmed bookings within a day of the window are kept.
import { DateTime } from 'luxon';
import type { Scenario } from '@reflow/seed';
import type { Problem } from '../src/index.ts';

const MARGIN_DAYS = 1;

function localDates(from: string, to: string, zone: string): DateTime[] {
  const days: DateTime[] = [];
  const last = DateTime.fromISO(to, { zone }).startOf('day');
  for (let d = DateTime.fromISO(from, { zone }).startOf('day'); d <= last; d = d.plus({ days: 1 })) days.push(d);
  return days;
}

function atLocal(day: DateTime, hhmm: string): number {
  const [hour, minute] = hhmm.split(':').map(Number);
  return day.set({ hour, minute, second: 0, millisecond: 0 }).toMillis();
}

export function scenarioProblem(scenario: Scenario): Problem {
  const zone = scenario.site.site.timezone;
  const window = {
    start: DateTime.fromISO(scenario.from, { zone }).startOf('day').toMillis(),
    end: DateTime.fromISO(scenario.to, { zone }).startOf('day').plus({ days: 1 }).toMillis(),
  };
  const first = DateTime.fromISO(scenario.from, { zone }).minus({ days: MARGIN_DAYS }).toISODate()!;
  const last = DateTime.fromISO(scenario.to, { zone }).plus({ days: MARGIN_DAYS }).toISODate()!;
  const days = localDates(first, last, zone);
  const span = { start: days[0].toMillis(), end: days[days.length - 1].plus({ days: 1 }).toMillis() };
  const rooms = scenario.site.rooms.map((room) => ({
    id: room.id,
    capacity: room.capacity,
    features: [...room.features].sort(),
    open: days.map((d) => ({ start: atLocal(d, room.opensAt), end: atLocal(d, room.closesAt) })),
  }));
  const bookings = scenario.site.bookings
    .filter((b) => (b.status ?? 'confirmed') === 'confirmed')
    .map((b) => ({
      id: b.id,
      roomId: b.roomId,
      start: DateTime.fromISO(b.start).toMillis(),
      end: DateTime.fromISO(b.end).toMillis(),
      attendees: b.attendees,
      requiredFeatures: [...(b.requiredFeatures ?? [])].sort(),
      seriesId: b.seriesId ?? null,
      flexMinutes: b.flexMinutes ?? 0,
    }))
    .filter((b) => b.start < span.end && span.start < b.end);
  return { rooms, bookings, offlineRooms: [...scenario.offline_rooms], window };
}
