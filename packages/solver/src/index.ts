// The solver's public face: one pure function, its cancellation error, a plan checker, and the
// contract types. Nothing else in this package is public.
export { solve } from './solve.ts';
export { SolveCancelledError } from './errors.ts';
export { checkPlan } from './check-plan.ts';
export { loadHighsEngine } from './highs-load.ts';
export type {
  Interval,
  Move,
  Plan,
  Problem,
  SolveHooks,
  SolveOptions,
  SolveProgress,
  SolverBooking,
  SolverRoom,
  Unresolved,
  UnresolvedCode,
} from './types.ts';
