// The solver's entry point: a pure, deterministic function from a snapshot to a plan. Components
// are solved smallest first so progress moves early and a cancelled solve wasted little.
import { candidatesFor, type Candidate } from './candidates.ts';
import { findComponents } from './components.ts';
import { SolveCancelledError } from './errors.ts';
import { buildInstance } from './instance.ts';
import { Occupancy } from './occupancy.ts';
import { unresolvedReason } from './reasons.ts';
import { solveComponent, type ComponentOptions } from './solve-component.ts';
import { homeRooms, seriesSplit, withSeriesPenalty } from './series-rooms.ts';
import type { Move, Plan, Problem, SolveHooks, SolveOptions, Unresolved } from './types.ts';

export const DEFAULT_OPTIONS = {
  componentBudgetMs: 10_000,
  maxCandidatesPerBooking: 20,
  maxModelVariables: 2_000,
  maxJsLpVariables: 150,
  totalBudgetMs: 45_000,
} as const satisfies Required<SolveOptions>;

export function solve(problem: Problem, options: SolveOptions = {}, hooks: SolveHooks = {}): Plan {
  const settings: ComponentOptions = {
    budgetMs: options.componentBudgetMs ?? DEFAULT_OPTIONS.componentBudgetMs,
    maxCandidates: Math.max(1, options.maxCandidatesPerBooking ?? DEFAULT_OPTIONS.maxCandidatesPerBooking),
    maxVariables: Math.max(1, options.maxModelVariables ?? DEFAULT_OPTIONS.maxModelVariables),
    maxJsLpVariables: Math.max(0, options.maxJsLpVariables ?? DEFAULT_OPTIONS.maxJsLpVariables),
  };
  const instance = buildInstance(problem);
  const { affected } = instance;
  const candidates = affected.map((_, i) => candidatesFor(instance, i));
  const homes = homeRooms(instance, candidates);
  // Indices ascend by (start, id), so a component's first index is its earliest booking.
  const components = findComponents(candidates).sort((a, b) => a.length - b.length || a[0] - b[0]);
  const engines = { javascriptLpSolver: 0, highs: 0 };
  const deadline = Date.now() + (options.totalBudgetMs ?? DEFAULT_OPTIONS.totalBudgetMs);
  const weightOf = (component: number[]) =>
    component.reduce((n, i) => n + Math.min(candidates[i].length, settings.maxCandidates), 0);
  let weightLeft = components.reduce((n, component) => n + weightOf(component), 0);

  const chosen: (Candidate | null)[] = affected.map(() => null);
  const optimal = { moved: true, shift: true };
  let movedBound = 0;
  let bookingsDone = 0;
  let movedSoFar = 0;
  components.forEach((component, done) => {
    if (hooks.shouldStop?.()) throw new SolveCancelledError(done, components.length);
    const local = withSeriesPenalty(instance, component, candidates, homes);
    // Up to twice its share by size of the time left: components come smallest first and most
    // finish early, so the big ones at the end get what the small ones did not use.
    const share = weightLeft > 0 ? weightOf(component) / weightLeft : 1;
    weightLeft -= weightOf(component);
    const budgetMs = Math.max(1, Math.min(settings.budgetMs, (deadline - Date.now()) * share * 2));
    const result = solveComponent(local, { ...settings, budgetMs });
    if (result.engine === 'highs') engines.highs++;
    if (result.engine === 'javascript-lp-solver') engines.javascriptLpSolver++;
    result.choice.forEach((c, k) => {
      if (c) chosen[component[k]] = { ...c, booking: component[k] };
    });
    const moved = result.choice.filter((c) => c !== null).length;
    optimal.moved &&= result.provenMoved;
    optimal.shift &&= result.provenShift;
    movedBound += result.movedBound;
    bookingsDone += component.length;
    movedSoFar += moved;
    const span = {
      start: Math.min(...component.map((i) => affected[i].start)),
      end: Math.max(...component.map((i) => affected[i].end)),
    };
    hooks.onProgress?.({
      componentsDone: done + 1,
      componentsTotal: components.length,
      bookingsDone,
      affected: affected.length,
      movedSoFar,
      lastComponentSpan: span,
    });
  });

  const moves: Move[] = [];
  const seriesOf: (string | null)[] = [];
  const taken = Occupancy.of(chosen);
  const unresolved: Unresolved[] = [];
  for (let i = 0; i < affected.length; i++) {
    const booking = affected[i];
    const c = chosen[i];
    if (!c) {
      unresolved.push(unresolvedReason(instance, booking, candidates[i], taken));
      continue;
    }
    seriesOf.push(booking.seriesId);
    moves.push({
      bookingId: booking.id,
      fromRoom: booking.roomId,
      toRoom: c.roomId,
      fromStart: booking.start,
      toStart: c.start,
      shiftMinutes: c.shift,
    });
  }
  const split = seriesSplit(moves.map((m, k) => ({ seriesId: seriesOf[k], toRoom: m.toRoom })));
  const shiftProven = optimal.moved && optimal.shift;
  return {
    affected: affected.length,
    moves,
    unresolved,
    // Each level is only meaningful once the one before is settled; level 3 has no search of
    // its own, so it is proven only at its floor of zero.
    optimal: { moved: optimal.moved, shift: shiftProven, series: shiftProven && split === 0 },
    movedBound,
    totalShiftMinutes: moves.reduce((sum, m) => sum + Math.abs(m.shiftMinutes), 0),
    seriesSplit: split,
    components: components.length,
    engines,
  };
}
