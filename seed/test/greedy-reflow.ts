// A deliberately simple reflow of the problem in docs/solver.md, to check the demo is "mostly movable": the most
// constrained booking first, each takes its smallest-shift free placement. It gives a lower
// bound on what the real solver moves; `movableAlone` (a placement exists ignoring the other
// moved bookings) is an upper bound.
import { DateTime } from 'luxon';
import type { SiteBooking, SiteFile, SiteRoom } from '../site-file.ts';
import { windowMillis } from '../local-time.ts';

export type Kind = 'no_suitable_room' | 'rooms_busy' | 'outcompeted';
interface Span {
  start: number;
  end: number;
}
interface Placement extends Span {
  roomId: string;
  shift: number;
}

export interface GreedyResult {
  affected: SiteBooking[];
  moved: Map<string, Placement>;
  unresolved: Map<string, Kind>;
  movableAlone: number;
}

const MIN = 60_000;
const overlaps = (a: Span, b: Span) => a.start < b.end && b.start < a.end;
const ms = (iso: string) => DateTime.fromISO(iso).toMillis();

function openOn(room: SiteRoom, instant: number, zone: string): Span {
  const day = DateTime.fromMillis(instant, { zone }).startOf('day');
  const at = (hm: string) => day.set({ hour: Number(hm.slice(0, 2)), minute: Number(hm.slice(3)) }).toMillis();
  return { start: at(room.opensAt), end: at(room.closesAt) };
}

export function greedyReflow(site: SiteFile, offline: string[], from: string, to: string): GreedyResult {
  const zone = site.site.timezone;
  const window = windowMillis(from, to, zone);
  const confirmed = site.bookings.filter((b) => (b.status ?? 'confirmed') === 'confirmed');
  const affected = confirmed.filter(
    (b) => offline.includes(b.roomId) && overlaps({ start: ms(b.start), end: ms(b.end) }, window),
  );
  const affectedIds = new Set(affected.map((b) => b.id));
  const blockers = confirmed
    .filter((b) => !affectedIds.has(b.id))
    .map((b) => ({ roomId: b.roomId, start: ms(b.start), end: ms(b.end) }));

  const suitable = (b: SiteBooking) =>
    site.rooms.filter(
      (r) => r.capacity >= b.attendees && (b.requiredFeatures ?? []).every((f) => r.features.includes(f)),
    );
  const candidates = new Map<string, Placement[]>();
  for (const b of affected) {
    const start = ms(b.start);
    const duration = ms(b.end) - start;
    const flex = b.flexMinutes ?? 0;
    const list: Placement[] = [];
    for (let shift = -flex; shift <= flex; shift += 15) {
      for (const room of suitable(b)) {
        const p = { roomId: room.id, start: start + shift * MIN, end: start + shift * MIN + duration, shift };
        const open = openOn(room, p.start, zone);
        if (p.start < open.start || p.end > open.end) continue;
        if (offline.includes(room.id) && overlaps(p, window)) continue;
        if (blockers.some((x) => x.roomId === room.id && overlaps(x, p))) continue;
        list.push(p);
      }
    }
    list.sort((x, y) => Math.abs(x.shift) - Math.abs(y.shift) || x.shift - y.shift);
    candidates.set(b.id, list);
  }

  const order = [...affected].sort(
    (x, y) => candidates.get(x.id)!.length - candidates.get(y.id)!.length || ms(x.start) - ms(y.start),
  );
  const moved = new Map<string, Placement>();
  const unresolved = new Map<string, Kind>();
  for (const b of order) {
    const taken = [...moved.values()];
    const choice = candidates.get(b.id)!.find((p) => !taken.some((t) => t.roomId === p.roomId && overlaps(t, p)));
    if (choice) moved.set(b.id, choice);
    else if (!suitable(b).some((r) => !offline.includes(r.id))) unresolved.set(b.id, 'no_suitable_room');
    else unresolved.set(b.id, candidates.get(b.id)!.length === 0 ? 'rooms_busy' : 'outcompeted');
  }
  const movableAlone = affected.filter((b) => candidates.get(b.id)!.length > 0).length;
  return { affected, moved, unresolved, movableAlone };
}
