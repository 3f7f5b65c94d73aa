// What must hold in the shared PostgreSQL database after a cluster lost nodes at the worst moments:
// the crash tests' booking invariants (../helpers/booking-invariants.ts, the same code), plus what
// only a cluster can break: two overlapping scopes claimed at once on two nodes, a dead node's
// attempt "finishing", and a per-principal cap counted per node instead of for the cluster.
// Everything is read from the database's own records.
import assert from 'node:assert/strict';
import {
  checkInvariants,
  readBookings as readBookingsThrough,
  type BookingState,
  type InvariantSummary,
  type RowReader,
} from '../helpers/booking-invariants.ts';
import { allEvents, pidOf, rows, type ClusterDatabase, type TaskEvent } from './cluster-helper.ts';

/** The cluster's database as the shared booking checks read it. */
const reader = (db: ClusterDatabase): RowReader => ({ all: (text) => rows(db, text) });

export const readBookings = (db: ClusterDatabase) => readBookingsThrough(reader(db));

interface TaskState {
  id: string;
  owner: string;
  status: string;
  scope_key: string | null;
  scope_start: number | null;
  scope_end: number | null;
}

/** The kinds of event that end an attempt's claim (on the attempt number it carries). */
const ATTEMPT_ENDS = new Set(['completed', 'failed', 'cancelled', 'released', 'input_required']);
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** One attempt as the history records it: who claimed it, when, and when its claim ended. */
export interface AttemptRecord {
  taskId: string;
  attempt: number;
  by: string;
  claimedAt: number;
  /** The end event's time, or the claimant's death when that came first (a dead process holds nothing). */
  endedAt: number;
  /** The claimant died while the attempt was still its own. */
  diedInIt: boolean;
}

export interface ClusterSummary extends InvariantSummary {
  attempts: number;
  attemptsCutByDeath: number;
  takenOverAndCompleted: number;
  scopedPairsChecked: number;
  maxUnfinishedPerPrincipal: Record<string, number>;
}

/**
 * Asserts every invariant; `deaths` maps each pid that died to when (ms), `before` is the bookings
 * before any node started, `cap` the per-principal unfinished-task limit the nodes ran with.
 */
export async function checkClusterInvariants(
  db: ClusterDatabase,
  before: Map<string, BookingState>,
  deaths: Map<number, number>,
  cap: number,
): Promise<ClusterSummary> {
  // Every task terminal, the bookings the before-state plus the audited moves, no overlaps.
  const bookings = await checkInvariants(reader(db), before);
  const tasks = await rows<TaskState>(db, 'SELECT id, owner, status, scope_key, scope_start, scope_end FROM tasks');
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const events = await allEvents(db);
  const attempts = attemptsOf(events, deaths);
  const summary = {
    ...bookings,
    attempts: attempts.length,
    attemptsCutByDeath: attempts.filter((a) => a.diedInIt).length,
    takenOverAndCompleted: checkTakeovers(events, attempts, byId),
    scopedPairsChecked: checkScopesExclusive(attempts, byId),
    maxUnfinishedPerPrincipal: checkCap(events, byId, cap),
  };
  return summary;
}

/** Every claim in the history, paired with what ended it. */
function attemptsOf(events: TaskEvent[], deaths: Map<number, number>): AttemptRecord[] {
  const open = new Map<string, AttemptRecord & { ended: boolean }>();
  const all: (AttemptRecord & { ended: boolean })[] = [];
  for (const e of events) {
    const key = `${e.task_id}#${e.attempt}`;
    if (e.kind === 'claimed') {
      // An attempt number is claimed once: a refund (a clean shutdown) adds an attempt, never reuses one.
      assert.ok(!open.has(key), `attempt ${e.attempt} of ${e.task_id} claimed twice`);
      const by = e.data?.by;
      assert.ok(by, `claim of ${key} records its node`);
      const record = {
        taskId: e.task_id,
        attempt: e.attempt,
        by,
        claimedAt: e.at,
        endedAt: e.at,
        diedInIt: false,
        ended: false,
      };
      open.set(key, record);
      all.push(record);
    } else if (ATTEMPT_ENDS.has(e.kind)) {
      const record = open.get(key);
      if (!record || record.ended) continue; // a cancel of a queued task, or a second end of one attempt
      record.ended = true;
      record.endedAt = e.at;
      const died = deaths.get(pidOf(record.by));
      if (died !== undefined && died >= record.claimedAt && died < e.at) {
        record.endedAt = died;
        record.diedInIt = true;
      }
    }
  }
  for (const record of all)
    assert.ok(
      record.ended,
      `attempt ${record.attempt} of ${record.taskId} (by ${record.by}) has an end in the history`,
    );
  return all;
}

/**
 * A task whose running node died mid-attempt and that then completed was completed by a later
 * attempt of another node, and the dead attempt recorded nothing after its node died.
 */
function checkTakeovers(events: TaskEvent[], attempts: AttemptRecord[], byId: Map<string, TaskState>): number {
  const completed = new Set<string>();
  for (const dead of attempts.filter((a) => a.diedInIt)) {
    const late = events.filter(
      (e) =>
        e.task_id === dead.taskId &&
        e.attempt === dead.attempt &&
        e.at > dead.endedAt &&
        ['progress', 'completed', 'input_required'].includes(e.kind),
    );
    assert.deepEqual(late, [], `attempt ${dead.attempt} of ${dead.taskId} wrote nothing after its node died`);
    if (byId.get(dead.taskId)?.status !== 'completed') continue;
    const completion = events.find((e) => e.task_id === dead.taskId && e.kind === 'completed')!;
    const finisher = attempts.find((a) => a.taskId === dead.taskId && a.attempt === completion.attempt);
    assert.ok(finisher, `the completing attempt of ${dead.taskId} was claimed`);
    assert.ok(
      finisher.attempt > dead.attempt,
      `${dead.taskId} completed by a later attempt than the one whose node died`,
    );
    assert.notEqual(finisher.by, dead.by, `${dead.taskId} completed by another node than the one that died running it`);
    completed.add(dead.taskId);
  }
  return completed.size;
}

/** No two attempts of tasks with overlapping scopes held their claims at the same time. */
function checkScopesExclusive(attempts: AttemptRecord[], byId: Map<string, TaskState>): number {
  const scoped = attempts.map((a) => ({ a, t: byId.get(a.taskId)! })).filter(({ t }) => t.scope_key !== null);
  let pairs = 0;
  for (let i = 0; i < scoped.length; i++)
    for (let j = i + 1; j < scoped.length; j++) {
      const [x, y] = [scoped[i], scoped[j]];
      if (x.t.id === y.t.id || x.t.scope_key !== y.t.scope_key) continue;
      if (!(x.t.scope_start! < y.t.scope_end! && y.t.scope_start! < x.t.scope_end!)) continue;
      pairs++;
      const apart = x.a.claimedAt >= y.a.endedAt || y.a.claimedAt >= x.a.endedAt;
      assert.ok(
        apart,
        `overlapping scopes held at once: ${x.t.id}#${x.a.attempt} by ${x.a.by} [${x.a.claimedAt}, ${x.a.endedAt}) and ` +
          `${y.t.id}#${y.a.attempt} by ${y.a.by} [${y.a.claimedAt}, ${y.a.endedAt})`,
      );
    }
  return pairs;
}

/** No principal ever had more than `cap` unfinished tasks, whichever nodes created them. */
function checkCap(events: TaskEvent[], byId: Map<string, TaskState>, cap: number): Record<string, number> {
  // Created and terminal moments per owner; at one instant, endings count first (a create admitted
  // on the strength of an ending saw it committed, so it came later).
  const moments: { at: number; owner: string; delta: number }[] = [];
  for (const e of events) {
    const owner = byId.get(e.task_id)?.owner;
    if (!owner) continue;
    if (e.kind === 'created') moments.push({ at: e.at, owner, delta: 1 });
    else if (TERMINAL.has(e.kind)) moments.push({ at: e.at, owner, delta: -1 });
  }
  moments.sort((a, b) => a.at - b.at || a.delta - b.delta);
  const now: Record<string, number> = {};
  const max: Record<string, number> = {};
  for (const m of moments) {
    now[m.owner] = (now[m.owner] ?? 0) + m.delta;
    max[m.owner] = Math.max(max[m.owner] ?? 0, now[m.owner]);
  }
  for (const [owner, n] of Object.entries(max))
    assert.ok(n <= cap, `${owner} had ${n} unfinished tasks at once across the nodes (the cap is ${cap})`);
  return max;
}
