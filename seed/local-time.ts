// Wall-clock arithmetic in the site's zone. The generator schedules in local minutes after
// midnight of a local date; only here do those become instants (luxon does the offsets, so a
// month that crosses a DST change still gets the right "+01:00"/"+00:00").
import { DateTime } from 'luxon';

export interface LocalDay {
  /** YYYY-MM-DD */
  date: string;
  /** ISO weekday, 1 = Monday. */
  weekday: number;
}

export function parseMonth(month: string): { year: number; month: number } {
  const m = /^(\d{4})-(\d{2})$/.exec(month);
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 12) throw new Error(`month must be YYYY-MM, got ${month}`);
  return { year: Number(m[1]), month: Number(m[2]) };
}

export function monthDays(month: string, zone: string): LocalDay[] {
  const { year, month: mm } = parseMonth(month);
  const first = DateTime.fromObject({ year, month: mm, day: 1 }, { zone });
  if (!first.isValid) throw new Error(`invalid time zone ${zone}`);
  const days: LocalDay[] = [];
  for (let d = first; d.month === mm; d = d.plus({ days: 1 })) {
    days.push({ date: d.toISODate(), weekday: d.weekday });
  }
  return days;
}

/** "08:30" -> 510 */
export function parseHm(hm: string): number {
  const m = /^(\d{2}):(\d{2})$/.exec(hm);
  if (!m) throw new Error(`time must be HH:mm, got ${hm}`);
  return Number(m[1]) * 60 + Number(m[2]);
}

export function formatHm(minutes: number): string {
  const hh = String(Math.floor(minutes / 60)).padStart(2, '0');
  return `${hh}:${String(minutes % 60).padStart(2, '0')}`;
}

export function localDateTime(date: string, minutes: number, zone: string): DateTime {
  const [year, month, day] = date.split('-').map(Number);
  return DateTime.fromObject({ year, month, day, hour: Math.floor(minutes / 60), minute: minutes % 60 }, { zone });
}

/** ISO with the local offset and no milliseconds: 2026-09-08T10:00:00+01:00 */
export function toLocalIso(date: string, minutes: number, zone: string): string {
  return localDateTime(date, minutes, zone).toISO({ suppressMilliseconds: true, includeOffset: true })!;
}

/** The offline window (docs/solver.md, "The problem"): local midnight of `from` to local midnight after `to`. */
export function windowMillis(from: string, to: string, zone: string): { start: number; end: number } {
  const start = DateTime.fromISO(from, { zone }).startOf('day');
  const end = DateTime.fromISO(to, { zone }).startOf('day').plus({ days: 1 });
  return { start: start.toMillis(), end: end.toMillis() };
}
