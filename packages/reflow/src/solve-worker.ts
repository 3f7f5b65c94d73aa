// Runs in a worker thread: no database handle, only the snapshot in and the plan out.
import { loadHighsEngine, solve, SolveCancelledError, type Problem, type SolveOptions } from '@reflow/solver';
import { workerTask } from '@reflow/tasks';

export interface SolveJob {
  problem: Problem;
  options?: SolveOptions;
}

export type SolveReply = { cancelled: true } | { cancelled: false; plan: ReturnType<typeof solve> };

export default workerTask<SolveJob, SolveReply>(async (job, ctx) => {
  // The second engine for large components; loaded once per worker thread.
  await loadHighsEngine();
  try {
    const plan = solve(job.problem, job.options, {
      onProgress: (p) => ctx.report(p),
      shouldStop: () => ctx.shouldStop(),
    });
    return { cancelled: false, plan };
  } catch (error) {
    if (error instanceof SolveCancelledError) return { cancelled: true };
    throw error;
  }
});
