// The solver's contract. Everything is a plain, structured-cloneable object so a snapshot can
// cross into a worker thread and a plan can come back. Times are UTC epoch milliseconds; the
// caller (packages/reflow) has already turned wall-clock opening hours and the offline window
// into instants, so the solver knows nothing of time zones.

export interface Interval {
  start: number;
  end: number;
}

export interface SolverRoom {
  id: string;
  capacity: number;
  features: string[];
  /** The room's opening hours as instants, one interval per local day, sorted, non-overlapping. */
  open: Interval[];
}

export interface SolverBooking {
  id: string;
  roomId: string;
  start: number;
  end: number;
  attendees: number;
  requiredFeatures: string[];
  seriesId: string | null;
  flexMinutes: number;
}

export interface Problem {
  rooms: SolverRoom[];
  /** Every confirmed booking that may matter: the affected ones and those that block target rooms. */
  bookings: SolverBooking[];
  offlineRooms: string[];
  /** Offline window [start, end). */
  window: Interval;
}

export interface SolveOptions {
  /**
   * Wall-clock budget per component's ILP, in ms (default 10 000). A hard deadline: the search
   * stops there and keeps its best verified plan, unproven. The LP bound that decides what is
   * proven gets at most as much again.
   */
  componentBudgetMs?: number;
  /**
   * Wall-clock budget for the whole solve, in ms (default 45 000): each component gets at most
   * its share by size of what is left (and never more than componentBudgetMs). A component cut
   * short keeps its best verified plan and reports its bound, so a campus answers in time.
   */
  totalBudgetMs?: number;
  /**
   * Keep at most this many candidate placements per booking (the cheapest shifts first) in the
   * first model of each component. Default 20. When the result cannot be proven against all
   * candidates and the full model fits under maxModelVariables, the component is re-solved with
   * every candidate, so the cap never makes the solver claim an optimum it has not proven.
   */
  maxCandidatesPerBooking?: number;
  /** Largest ILP model (variables) built at once; the library keeps a dense matrix. Default 2000. */
  maxModelVariables?: number;
  /**
   * Components whose capped model has more variables than this go to the second engine (HiGHS)
   * once `loadHighsEngine()` has resolved in this thread. Default 150; 0 means
   * javascript-lp-solver for everything.
   */
  maxJsLpVariables?: number;
}

export interface Move {
  bookingId: string;
  fromRoom: string;
  toRoom: string;
  fromStart: number;
  toStart: number;
  /** Signed: (toStart − fromStart) in minutes. */
  shiftMinutes: number;
}

export type UnresolvedCode = 'no_suitable_room' | 'rooms_busy' | 'outcompeted';

export interface Unresolved {
  bookingId: string;
  code: UnresolvedCode;
  /** A sentence a person can act on. */
  reason: string;
}

export interface Plan {
  affected: number;
  moves: Move[];
  unresolved: Unresolved[];
  /**
   * Whether each objective level is proven optimal: moved (level 1), total shift given that
   * count (level 2), series split given both (level 3; proven only when no series is split).
   */
  optimal: { moved: boolean; shift: boolean; series: boolean };
  /** Proven upper bound on the number of moved bookings (equals moves.length when optimal.moved). */
  movedBound: number;
  totalShiftMinutes: number;
  /** Level 3: for each series, distinct target rooms of its moved bookings − 1, summed. */
  seriesSplit: number;
  components: number;
  /** Components whose ILP ran on each engine (the rest were settled without one). */
  engines: { javascriptLpSolver: number; highs: number };
}

export interface SolveProgress {
  componentsDone: number;
  componentsTotal: number;
  /** Bookings in the components solved so far. */
  bookingsDone: number;
  affected: number;
  movedSoFar: number;
  /** Start of the earliest and end of the latest affected booking in the component just solved. */
  lastComponentSpan: Interval | null;
}

export interface SolveHooks {
  onProgress?: (progress: SolveProgress) => void;
  /** Checked between components; when it returns true the solve stops with SolveCancelledError. */
  shouldStop?: () => boolean;
}
