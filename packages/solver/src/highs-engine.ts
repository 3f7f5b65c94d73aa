// The second engine: HiGHS compiled to WebAssembly, for components javascript-lp-solver cannot
// handle in time (its dense tableau grows with every variable; HiGHS is sparse, presolves, and
// stops at its own time limit). Same model, same distrust: an answer counts only if integral and
// feasible by our own check, and proves something only when HiGHS reports it Optimal.
import highsLoader from 'highs';
import type { Candidate } from './candidates.ts';
import { cliqueRows } from './clique-rows.ts';
import type { Choice } from './objective.ts';
import type { IlpOutcome } from './run-ilp.ts';
import { isFeasibleChoice } from './occupancy.ts';

type Highs = Awaited<ReturnType<typeof highsLoader>>;

let engine: Highs | null = null;
let loading: Promise<void> | null = null;

/** Loads the WebAssembly module once per thread; until it resolves, solve uses javascript-lp-solver only. */
export function loadHighsModule(): Promise<void> {
  loading ??= highsLoader().then((loaded) => {
    engine = loaded;
  });
  return loading;
}

export const highsReady = (): boolean => engine !== null;

/** The loaded module, for the other HiGHS models of this package; null until loadHighsEngine resolves. */
export const highsEngine = (): Highs | null => engine;

const TERMS_PER_LINE = 10;
const INTEGRAL_EPS = 1e-6;

export function sum(terms: string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < terms.length; i += TERMS_PER_LINE) lines.push(terms.slice(i, i + TERMS_PER_LINE).join(' + '));
  return lines.join('\n  + ');
}

/** CPLEX LP text over the model of ilp-model.ts: booking rows, clique rows, binaries or [0, 1]. */
export function lpText(candidates: Candidate[][], objective: string, extraRows: string[], integer: boolean): string {
  const variables = candidates.flat();
  const name = (v: number) => `x${v}`;
  const rows: string[] = [];
  let v = 0;
  candidates.forEach((list, i) => {
    if (list.length > 1) rows.push(` b${i}: ${sum(list.map((_, k) => name(v + k)))} <= 1`);
    v += list.length;
  });
  cliqueRows(variables).forEach((row, r) => rows.push(` k${r}: ${sum(row.map((v) => name(v)))} <= 1`));
  rows.push(...extraRows);
  const columns = variables.map((_, i) => name(i));
  const kind = integer
    ? `Binary\n ${columns.join('\n ')}`
    : `Bounds\n ${columns.map((c) => `0 <= ${c} <= 1`).join('\n ')}`;
  // A model without rows still needs a section HiGHS accepts.
  return `${objective}\nSubject To\n${rows.length > 0 ? rows.join('\n') : ` none: ${name(0)} <= 1`}\n${kind}\nEnd\n`;
}

export const secondsUntil = (deadline: number) => Math.max(0.01, (deadline - Date.now()) / 1000);

/** A verified choice from HiGHS's column values, or null when any value is fractional or the plan clashes. */
export function readChoice(
  candidates: Candidate[][],
  columns: Partial<Record<string, { Primal?: number }>>,
): Choice | null {
  const variables = candidates.flat();
  const choice: Choice = candidates.map(() => null);
  for (let v = 0; v < variables.length; v++) {
    const value = columns[`x${v}`]?.Primal ?? 0;
    if (Math.abs(value) <= INTEGRAL_EPS) continue;
    if (Math.abs(value - 1) > INTEGRAL_EPS) return null;
    const c = variables[v];
    if (choice[c.booking]) return null;
    choice[c.booking] = c;
  }
  return isFeasibleChoice(choice) ? choice : null;
}

/** The weighted model of objective.ts (one model, provably lexicographic), over these candidates. */
export function solveWithHighs(
  candidates: Candidate[][],
  worth: (c: Candidate) => number,
  deadline: number,
): IlpOutcome {
  if (!engine || candidates.flat().length === 0 || Date.now() >= deadline) return { choice: null, finished: false };
  const objective = `Maximize\n obj: ${sum(candidates.flat().map((c, v) => `${worth(c)} x${v}`))}`;
  const result = engine.solve(lpText(candidates, objective, [], true), {
    mip_rel_gap: 0,
    output_flag: false,
    time_limit: secondsUntil(deadline),
  });
  const choice = readChoice(candidates, result.Columns as Record<string, { Primal?: number }>);
  return { choice, finished: choice !== null && result.Status === 'Optimal' };
}

/** The LP relaxation's optimum raised by more than rounding could have taken off it: an upper bound, or null. */
export function highsRelaxationBound(
  candidates: Candidate[][],
  worth: (c: Candidate) => number,
  deadline: number,
): number | null {
  if (!engine || candidates.flat().length === 0 || Date.now() >= deadline) return null;
  const objective = `Maximize\n obj: ${sum(candidates.flat().map((c, v) => `${worth(c)} x${v}`))}`;
  const result = engine.solve(lpText(candidates, objective, [], false), {
    output_flag: false,
    time_limit: secondsUntil(deadline),
  });
  if (result.Status !== 'Optimal' || !Number.isFinite(result.ObjectiveValue)) return null;
  return result.ObjectiveValue + 1e-6 * Math.max(1, Math.abs(result.ObjectiveValue));
}
