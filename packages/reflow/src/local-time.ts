import { DateTime } from 'luxon';

// Every wall-clock <-> instant conversion goes through here, in the site's IANA zone.

export function localMidnight(date: string, zone: string): number {
  return DateTime.fromISO(date, { zone }).startOf('day').toMillis();
}

export function nextLocalMidnight(date: string, zone: string): number {
  return DateTime.fromISO(date, { zone }).plus({ days: 1 }).startOf('day').toMillis();
}

/** Enough for years of days × dozens of distinct opening hours; a few MB at most. */
const WALL_CLOCK_CACHE_SIZE = 50_000;
const wallClockCache = new Map<string, number>();

/** Instant of "HH:MM" on a local date; "24:00" is the next midnight. */
export function atLocalTime(date: string, hhmm: string, zone: string): number {
  // A snapshot asks for rooms × days of these, mostly the same few opening hours on the same days,
  // and luxon's zone arithmetic dominates its cost: remember luxon's own answers, so every DST rule
  // stays luxon's. The instant for a given zone, date and time never changes.
  const key = `${zone}|${date}|${hhmm}`;
  const known = wallClockCache.get(key);
  if (known !== undefined) return known;
  const day = DateTime.fromISO(date, { zone }).startOf('day');
  const [h, m] = hhmm.split(':').map(Number);
  const instant = (h === 24 ? day.plus({ days: 1 }) : day.set({ hour: h, minute: m })).toMillis();
  // Bounded: a long-running server sees new dates forever; forget the oldest answers first.
  if (wallClockCache.size >= WALL_CLOCK_CACHE_SIZE) wallClockCache.delete(wallClockCache.keys().next().value!);
  wallClockCache.set(key, instant);
  return instant;
}

/** Forgets every remembered conversion (for tests and the benchmark's cold baseline). */
export function clearLocalTimeCache(): void {
  wallClockCache.clear();
  humanRanges.clear();
}

/**
 * Local dates (YYYY-MM-DD) from `from` to `to` inclusive. Counted as UTC dates: in the process's zone
 * a clock change that skips midnight would turn 00:00 into 01:00 and drop the last date.
 */
export function localDates(from: string, to: string): string[] {
  const dates: string[] = [];
  const last = DateTime.fromISO(to, { zone: 'utc' });
  for (let d = DateTime.fromISO(from, { zone: 'utc' }); d <= last; d = d.plus({ days: 1 })) dates.push(d.toISODate()!);
  return dates;
}

export function toLocalIso(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toISO({ suppressMilliseconds: true })!;
}

export function toLocalDate(ms: number, zone: string): string {
  return DateTime.fromMillis(ms, { zone }).toISODate()!;
}

/** Ranges already written: every create's status message names one, mostly the same few. */
const humanRanges = new Map<string, string>();
const HUMAN_RANGE_CACHE_SIZE = 10_000;

/** "7–20 Sep" style, for sentences people read. */
export function humanRange(from: string, to: string): string {
  const key = `${from}|${to}`;
  const known = humanRanges.get(key);
  if (known !== undefined) return known;
  const a = DateTime.fromISO(from, { zone: 'utc' });
  const b = DateTime.fromISO(to, { zone: 'utc' });
  const text =
    from === to
      ? a.toFormat('d LLL')
      : a.month === b.month
        ? `${a.day}–${b.toFormat('d LLL')}`
        : `${a.toFormat('d LLL')}–${b.toFormat('d LLL')}`;
  if (humanRanges.size >= HUMAN_RANGE_CACHE_SIZE) humanRanges.delete(humanRanges.keys().next().value!);
  humanRanges.set(key, text);
  return text;
}

/** Parses an ISO instant that must carry an offset; undefined when it does not. */
export function parseInstant(text: string): number | undefined {
  if (!/([+-]\d\d:\d\d|Z)$/.test(text)) return undefined;
  const dt = DateTime.fromISO(text, { setZone: true });
  return dt.isValid ? dt.toMillis() : undefined;
}

export function isValidZone(zone: string): boolean {
  return DateTime.local().setZone(zone).isValid;
}
