// The javascript-lp-solver model of one component: one variable per candidate, "at most one" per
// booking, one clique row per set of pairwise-overlapping candidates in a room. The ILP also gets
// an explicit "<= 1" row per variable (2.5x faster than declaring binaries, and far faster than
// none); the LP relaxation leaves them out, as the booking rows already imply them and its
// simplex ran 7x faster without them.
import type { Model } from 'javascript-lp-solver';
import type { Candidate } from './candidates.ts';
import { cliqueRows } from './clique-rows.ts';
import { placementWeight } from './objective.ts';

export const OBJECTIVE = 'weight';

export interface BuiltModel {
  model: Model;
  /** variables[v] is the candidate behind variable `x${v}`. */
  variables: Candidate[];
}

export function variableName(v: number): string {
  return `x${v}`;
}

export function buildModel(
  candidates: Candidate[][],
  weight: number,
  integer: boolean,
  /** Bounds branch and bound only; ignored for the LP relaxation. */
  timeoutMs = 0,
): BuiltModel {
  const variables = candidates.flat();
  const columns: Model['variables'] = {};
  const constraints: Model['constraints'] = {};
  const ints: Record<string, 1> = {};
  variables.forEach((c, v) => {
    const name = variableName(v);
    columns[name] = { [OBJECTIVE]: placementWeight(weight, c) };
    if (!integer) return;
    columns[name][`u${v}`] = 1;
    constraints[`u${v}`] = { max: 1 };
    ints[name] = 1;
  });
  let v = 0;
  candidates.forEach((list, i) => {
    // In the ILP a booking with one candidate is already covered by that variable's own row.
    if (list.length > 1 || !integer) {
      constraints[`b${i}`] = { max: 1 };
      for (let k = 0; k < list.length; k++) columns[variableName(v + k)][`b${i}`] = 1;
    }
    v += list.length;
  });
  cliqueRows(variables).forEach((row, r) => {
    constraints[`k${r}`] = { max: 1 };
    for (const member of row) columns[variableName(member)][`k${r}`] = 1;
  });
  const model: Model = {
    optimize: OBJECTIVE,
    opType: 'max',
    constraints,
    variables: columns,
  };
  if (integer) {
    model.ints = ints;
    model.options = { tolerance: 0, timeout: Math.max(1, Math.floor(timeoutMs)), useMIRCuts: true };
  }
  return { model, variables };
}
