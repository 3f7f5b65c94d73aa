// Small time helpers shared by the solver and the plan checker. All times are UTC epoch ms.
import type { Interval } from './types.ts';

export const MINUTE_MS = 60_000;
/** Shifts move a booking by whole multiples of this many minutes. */
export const SLOT_MINUTES = 15;

/** Half-open intervals: touching ends do not overlap. */
export function overlaps(a: Interval, b: Interval): boolean {
  return a.start < b.end && b.start < a.end;
}

/** Whether [start, end) lies inside a single interval of a sorted, non-overlapping list. */
export function insideOne(sorted: Interval[], start: number, end: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  let found = -1;
  // Last interval starting at or before `start`: the only one that can contain it.
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid].start <= start) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  return found >= 0 && end <= sorted[found].end;
}

/** `2026-09-08T09:00Z`: minute precision is all a person needs in a reason. */
export function isoMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16)}Z`;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
