// The independent exact solver the benchmark and the optimality tests compare against: HiGHS
// (compiled to WebAssembly) on a model built here from the enumerated placements, sharing no
// code with the solver. No candidate cap; bookings are grouped only where their placements'
// times chain together (rooms close overnight, so about one group per day), and each group is
// solved in two lexicographic stages: most moved, then least total shift for that count.
import highsLoader from 'highs';
import type { Problem } from '../src/index.ts';
import { enumerate, type Placement } from './placements.ts';

type Highs = Awaited<ReturnType<typeof highsLoader>>;

export interface ReferenceResult {
  moved: number;
  totalShiftMinutes: number;
  /** Every group's two stages ended Optimal (false when a time limit cut one short). */
  optimal: boolean;
  groups: number;
  /** The placements of the final stage's solution, to check independently. */
  chosen: Placement[];
}

let loaded: Promise<Highs> | null = null;
export const loadHighs = (): Promise<Highs> => (loaded ??= highsLoader());

/** Groups of placements whose time spans chain together, whatever the room, merged where one booking spans two. */
function timeGroups(placements: Placement[]): Placement[][] {
  const sorted = [...placements].sort((a, b) => a.start - b.start || a.end - b.end);
  const parent: number[] = [];
  const root = (g: number): number => (parent[g] === g ? g : (parent[g] = root(parent[g])));
  const groupOf = new Map<Placement, number>();
  const bookingGroup = new Map<number, number>();
  let reach = -Infinity;
  for (const p of sorted) {
    if (p.start >= reach) parent.push(parent.length);
    const g = parent.length - 1;
    groupOf.set(p, g);
    reach = Math.max(reach, p.end);
    const earlier = bookingGroup.get(p.booking);
    if (earlier === undefined) bookingGroup.set(p.booking, g);
    else parent[root(g)] = root(earlier);
  }
  const groups = new Map<number, Placement[]>();
  for (const p of sorted) {
    const g = root(groupOf.get(p)!);
    const list = groups.get(g);
    if (list) list.push(p);
    else groups.set(g, [p]);
  }
  return [...groups.values()];
}

function sum(terms: string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < terms.length; i += 8) lines.push(terms.slice(i, i + 8).join(' + '));
  return lines.join('\n   + ');
}

function model(group: Placement[], stage: 1 | 2, moved = 0): string {
  const name = (i: number) => `x${i}`;
  const rows: string[] = [];
  const byBooking = new Map<number, number[]>();
  const byRoom = new Map<string, number[]>();
  const add = <K>(map: Map<K, number[]>, key: K, i: number) => {
    const list = map.get(key);
    if (list) list.push(i);
    else map.set(key, [i]);
  };
  group.forEach((p, i) => {
    add(byBooking, p.booking, i);
    add(byRoom, p.room, i);
  });
  for (const [b, members] of byBooking)
    if (members.length > 1) rows.push(` b${b}: ${sum(members.map((i) => name(i)))} <= 1`);
  let k = 0;
  for (const members of byRoom.values()) {
    // Two placements overlap iff one covers the other's start: one row per distinct start.
    const sorted = [...members].sort((a, b) => group[a].start - group[b].start);
    let covering: number[] = [];
    for (let n = 0; n < sorted.length;) {
      const t = group[sorted[n]].start;
      covering = covering.filter((i) => group[i].end > t);
      while (n < sorted.length && group[sorted[n]].start === t) covering.push(sorted[n++]);
      if (new Set(covering.map((i) => group[i].booking)).size > 1)
        rows.push(` k${k++}: ${sum(covering.map((i) => name(i)))} <= 1`);
    }
  }
  const all = group.map((_, i) => name(i));
  const objective =
    stage === 1 ? `Maximize\n obj: ${sum(all)}` : `Minimize\n obj: ${sum(group.map((p, i) => `${p.cost} ${name(i)}`))}`;
  if (stage === 2) rows.push(` moved: ${sum(all)} >= ${moved}`);
  return `${objective}\nSubject To\n${rows.join('\n')}\nBinary\n ${all.join('\n ')}\nEnd\n`;
}

function chosenIn(group: Placement[], columns: Record<string, unknown> | undefined): Placement[] {
  const values = (columns ?? {}) as Partial<Record<string, { Primal?: number }>>;
  return group.filter((_, i) => (values[`x${i}`]?.Primal ?? 0) > 0.5);
}

/**
 * `totalSeconds` bounds the whole reference: each HiGHS run gets what is left, and a run cut
 * short (or a group never reached) leaves `optimal` false, its count a lower bound.
 */
export async function solveReference(problem: Problem, totalSeconds = 90): Promise<ReferenceResult> {
  const highs = await loadHighs();
  const deadline = Date.now() + totalSeconds * 1000;
  const options = () => ({
    mip_rel_gap: 0,
    mip_abs_gap: 0.5,
    output_flag: false,
    time_limit: Math.max(0.01, (deadline - Date.now()) / 1000),
  });
  const groups = timeGroups(enumerate(problem).placements.flat());
  let moved = 0;
  let shift = 0;
  let optimal = true;
  const chosen: Placement[] = [];
  for (const group of groups) {
    if (Date.now() >= deadline) {
      optimal = false;
      continue;
    }
    const first = highs.solve(model(group, 1), options());
    optimal &&= first.Status === 'Optimal';
    const counted = chosenIn(group, first.Columns);
    const second = highs.solve(model(group, 2, counted.length), options());
    optimal &&= second.Status === 'Optimal';
    // Read the plan, not the objective value: a run cut short may report no solution at all.
    const priced = chosenIn(group, second.Columns);
    const plan = priced.length >= counted.length ? priced : counted;
    moved += plan.length;
    shift += plan.reduce((n, p) => n + p.cost, 0);
    chosen.push(...plan);
  }
  return { moved, totalShiftMinutes: shift, optimal, groups: groups.length, chosen };
}
