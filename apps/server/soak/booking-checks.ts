// Bookings at the end: no two confirmed bookings of one room overlap, and the audit explains the
// table. Each booking's version rose once per change: a reflow move (reflow_moves), an edit of the
// booking editor (logged with the version it wrote), or the one switch to needs_rebooking a real
// reflow makes for a booking it cannot move. Replaying those in version order, each move starting
// where the booking was just before, must land on the booking as it is now.
import type { BookingEdit } from './booking-editor.ts';
import { check, type CheckResult } from './check-result.ts';
import { peek } from '../harness/peek.ts';

export interface BookingState {
  id: string;
  roomId: string;
  startAt: number;
  endAt: number;
  status: string;
  version: number;
}

interface MoveRow {
  bookingId: string;
  fromRoom: string;
  toRoom: string;
  fromStart: number;
  toStart: number;
}

export function readBookings(databasePath: string): Map<string, BookingState> {
  return peek(databasePath, (db) => {
    const rows = db
      .prepare('SELECT id, room_id AS roomId, start_at AS startAt, end_at AS endAt, status, version FROM bookings')
      .all() as BookingState[];
    return new Map(rows.map((r) => [r.id, r]));
  });
}

export interface BookingFacts {
  moves: number;
  /** reflow_unresolved rows: with reflow_moves, the audit that is kept for good (the database grows with it). */
  unresolvedRows: number;
  needsRebooking: number;
  checks: CheckResult[];
}

export function checkBookings(
  databasePath: string,
  initial: Map<string, BookingState>,
  edits: BookingEdit[],
): BookingFacts {
  const now = readBookings(databasePath);
  const { moves, unresolved, unresolvedRows } = peek(databasePath, (db) => ({
    moves: db
      .prepare(
        'SELECT booking_id AS bookingId, from_room AS fromRoom, to_room AS toRoom, from_start AS fromStart, to_start AS toStart FROM reflow_moves ORDER BY id',
      )
      .all() as MoveRow[],
    unresolved: new Set(
      db.prepare("SELECT DISTINCT booking_id FROM reflow_unresolved WHERE code <> 'changed'").pluck().all() as string[],
    ),
    unresolvedRows: db.prepare('SELECT count(*) FROM reflow_unresolved').pluck().get() as number,
  }));
  const overlaps = findOverlaps([...now.values()]);
  const movesOf = group(moves, (m) => m.bookingId);
  const editsOf = group(edits, (e) => e.bookingId);
  const problems: string[] = [];
  if (now.size !== initial.size) problems.push(`${initial.size} bookings before, ${now.size} after`);
  for (const [id, before] of initial) {
    const after = now.get(id);
    if (!after) problems.push(`${id} vanished`);
    else {
      const problem = replay(before, after, movesOf.get(id) ?? [], editsOf.get(id) ?? [], unresolved.has(id));
      if (problem) problems.push(`${id}: ${problem}`);
    }
  }
  const needsRebooking = [...now.values()].filter(
    (b) => b.status === 'needs_rebooking' && initial.get(b.id)?.status !== 'needs_rebooking',
  ).length;
  return {
    moves: moves.length,
    unresolvedRows,
    needsRebooking,
    checks: [
      check(
        'no overlapping confirmed bookings',
        overlaps.length === 0,
        `${now.size} bookings; ${overlaps.length} overlaps${overlaps.length ? `: ${overlaps.slice(0, 2).join('; ')}` : ''}`,
      ),
      check(
        'audit matches the bookings',
        problems.length === 0,
        `${moves.length} reflow moves + ${edits.length} editor edits + ${needsRebooking} set needs_rebooking replayed; ${problems.length} mismatches${problems.length ? `: ${problems.slice(0, 2).join('; ')}` : ''}`,
      ),
    ],
  };
}

/** Replays one booking's history; undefined when it lands on the booking as it is now, else what went wrong. */
function replay(
  before: BookingState,
  after: BookingState,
  moves: MoveRow[],
  edits: BookingEdit[],
  unresolvedByReflow: boolean,
): string | undefined {
  const rebooked = after.status === 'needs_rebooking' && before.status !== 'needs_rebooking';
  const bumps = after.version - before.version;
  if (bumps !== moves.length + edits.length + (rebooked ? 1 : 0))
    return `version ${before.version}→${after.version} but ${moves.length} moves, ${edits.length} edits${rebooked ? ', 1 needs_rebooking' : ''}`;
  if (rebooked && !unresolvedByReflow) return 'needs_rebooking without a reflow_unresolved row';
  const editAt = new Map(edits.map((e) => [e.version, e]));
  const pos = { roomId: before.roomId, startAt: before.startAt, status: before.status };
  let nextMove = 0;
  for (let v = before.version + 1; v <= after.version; v++) {
    const edit = editAt.get(v);
    const move = moves.at(nextMove);
    if (edit) {
      if (edit.from.roomId !== pos.roomId || edit.from.startAt !== pos.startAt || edit.from.status !== pos.status)
        return `edit v${v} started from ${fmt(edit.from)}, booking was ${fmt(pos)}`;
      Object.assign(pos, edit.to);
    } else if (move) {
      if (move.fromRoom !== pos.roomId || move.fromStart !== pos.startAt || pos.status !== 'confirmed')
        return `move ${nextMove + 1} from ${move.fromRoom}@${iso(move.fromStart)}, booking was ${fmt(pos)}`;
      Object.assign(pos, { roomId: move.toRoom, startAt: move.toStart });
      nextMove++;
    } else if (rebooked && v === after.version) pos.status = 'needs_rebooking';
    else return `nothing explains version ${v}`;
  }
  if (pos.roomId !== after.roomId || pos.startAt !== after.startAt || pos.status !== after.status)
    return `replay ends at ${fmt(pos)}, table says ${fmt(after)}`;
  if (after.endAt - after.startAt !== before.endAt - before.startAt) return 'its length changed';
  return undefined;
}

function findOverlaps(bookings: BookingState[]): string[] {
  const found: string[] = [];
  const byRoom = group(
    bookings.filter((b) => b.status === 'confirmed'),
    (b) => b.roomId,
  );
  for (const list of byRoom.values()) {
    list.sort((a, b) => a.startAt - b.startAt);
    let last: BookingState | undefined;
    for (const b of list) {
      if (last && b.startAt < last.endAt) found.push(`${last.id} and ${b.id} in ${b.roomId}`);
      if (!last || b.endAt > last.endAt) last = b;
    }
  }
  return found;
}

function group<T>(items: T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const list = map.get(key(item));
    if (list) list.push(item);
    else map.set(key(item), [item]);
  }
  return map;
}

const iso = (ms: number) => new Date(ms).toISOString().slice(0, 16);
const fmt = (p: { roomId: string; startAt: number; status: string }) => `${p.roomId}@${iso(p.startAt)} ${p.status}`;
