// Runs javascript-lp-solver so that its answer can be trusted or knowingly discarded. Measured
// failure modes of 1.0.3 on degenerate models like ours: phase 2 gives up after a stalled run of
// Bland pivots and reports a non-optimal vertex as optimal (an LP "bound" 40% below a known
// integer solution); its cycle detector reports false infeasibility; and phase 1 can pivot
// forever after MIR cuts, where the library's own timeout (checked between branches) never fires.
// So: restart phase 2 while an improving column remains, distrust any run that saw a cycle or
// kept an improving column, and abort at a hard deadline counted in pivots.
import solver from 'javascript-lp-solver';
import type { Model, SolveResult } from 'javascript-lp-solver';

const PHASE2_RESTARTS = 50;
const PIVOTS_PER_CLOCK_CHECK = 64;

export interface LibraryRun {
  /** Null when the run hit the deadline. */
  result: SolveResult | null;
  /** False when any simplex run inside (root or branch) may have stopped short. */
  reliable: boolean;
}

type Tableau = InstanceType<typeof solver.Model>['tableau'];

class DeadlineReached extends Error {}

/** Whether the cost row still offers an improving column: the simplex stopped early. */
function canImprove(tableau: Tableau): boolean {
  const { matrix, width, precision } = tableau;
  for (let c = 1; c < width; c++) if (matrix[c] > precision) return true;
  return false;
}

export function runModel(json: Model, deadline: number): LibraryRun {
  const model = new solver.Model().loadJson(json);
  const { tableau } = model;
  const library = solver.Tableau.prototype;
  let reliable = true;
  let pivots = 0;
  // Patch this one tableau only (branch and bound restores state into the same object), never
  // the library's shared prototype.
  tableau.phase2 = function patchedPhase2(this: Tableau): number {
    let iterations = library.phase2.call(this);
    for (let k = 0; k < PHASE2_RESTARTS && this.feasible && this.bounded && canImprove(this); k++) {
      iterations += library.phase2.call(this);
    }
    if (this.feasible && this.bounded && canImprove(this)) reliable = false;
    return iterations;
  };
  tableau.pivot = function patchedPivot(this: Tableau, row: number, column: number): void {
    if (++pivots % PIVOTS_PER_CLOCK_CHECK === 0 && Date.now() > deadline) throw new DeadlineReached();
    library.pivot.call(this, row, column);
  };
  try {
    const result = solver.Solve(model) as SolveResult;
    if (model.messages.some((m) => typeof m === 'string' && m.startsWith('Cycle'))) reliable = false;
    return { result, reliable };
  } catch (error) {
    if (error instanceof DeadlineReached) return { result: null, reliable: false };
    throw error;
  }
}
