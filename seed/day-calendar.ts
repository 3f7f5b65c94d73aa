// Occupancy of each room on each local day, in local minutes. The generator asks it for free
// gaps so that bookings in one room never overlap; holds are occupancy that is never emitted.

export type Span = [start: number, end: number];

export class DayCalendar {
  private readonly busy = new Map<string, Span[]>();

  private spans(roomId: string, date: string): Span[] {
    const key = `${roomId}|${date}`;
    let spans = this.busy.get(key);
    if (!spans) this.busy.set(key, (spans = []));
    return spans;
  }

  isFree(roomId: string, date: string, start: number, end: number): boolean {
    return this.spans(roomId, date).every(([s, e]) => e <= start || s >= end);
  }

  add(roomId: string, date: string, start: number, end: number): void {
    if (!this.isFree(roomId, date, start, end)) {
      throw new Error(`${roomId} ${date} ${start}-${end} overlaps an existing booking`);
    }
    const spans = this.spans(roomId, date);
    spans.push([start, end]);
    spans.sort((a, b) => a[0] - b[0]);
  }

  remove(roomId: string, date: string, start: number, end: number): void {
    const spans = this.spans(roomId, date);
    const i = spans.findIndex(([s, e]) => s === start && e === end);
    if (i < 0) throw new Error(`${roomId} ${date} ${start}-${end} is not booked`);
    spans.splice(i, 1);
  }

  /** Free spans of the day between opening and closing, in order. */
  gaps(roomId: string, date: string, opens: number, closes: number): Span[] {
    const out: Span[] = [];
    let cursor = opens;
    for (const [s, e] of this.spans(roomId, date)) {
      if (s > cursor) out.push([cursor, Math.min(s, closes)]);
      cursor = Math.max(cursor, e);
    }
    if (cursor < closes) out.push([cursor, closes]);
    return out.filter(([s, e]) => e > s);
  }
}
