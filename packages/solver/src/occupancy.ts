// Which component bookings hold which room-times, for the greedy search and for checking any
// solution the ILP hands back.
import type { Candidate } from './candidates.ts';
import type { Choice } from './objective.ts';

export class Occupancy {
  private readonly rooms = new Map<string, Candidate[]>();

  static of(choice: Choice): Occupancy {
    const occupancy = new Occupancy();
    for (const c of choice) if (c) occupancy.add(c);
    return occupancy;
  }

  add(c: Candidate): void {
    const list = this.rooms.get(c.roomId);
    if (list) list.push(c);
    else this.rooms.set(c.roomId, [c]);
  }

  remove(c: Candidate): void {
    const list = this.rooms.get(c.roomId);
    const at = list ? list.indexOf(c) : -1;
    if (at >= 0) list!.splice(at, 1);
  }

  /** Bookings (ascending) whose placement overlaps `c` in its room, other than `ignore`. */
  conflicts(c: Candidate, ignore = -1): number[] {
    const hits: number[] = [];
    for (const other of this.rooms.get(c.roomId) ?? []) {
      if (other.booking !== ignore && other.start < c.end && c.start < other.end) hits.push(other.booking);
    }
    return hits.sort((a, b) => a - b);
  }

  isFree(c: Candidate, ignore = -1): boolean {
    return this.conflicts(c, ignore).length === 0;
  }
}

/** A choice is feasible when each slot holds its own booking's candidate and no two overlap. */
export function isFeasibleChoice(choice: Choice): boolean {
  const occupancy = new Occupancy();
  for (let i = 0; i < choice.length; i++) {
    const c = choice[i];
    if (!c) continue;
    if (c.booking !== i || !occupancy.isFree(c)) return false;
    occupancy.add(c);
  }
  return true;
}
