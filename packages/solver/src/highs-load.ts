// Loading the second engine, optionally warmed up. V8 first runs WebAssembly through its
// baseline compiler and optimises hot functions only after they have run a while: measured, the
// first real HiGHS solve in a thread took 2.2 s where the same solve takes 0.4 s afterwards. So
// `loadHighsEngine({ warmUp: true })` ends with a solve of a made-up component (a busy day of 32
// bookings over 6 rooms), paying that once per thread before the work arrives. Deterministic:
// no clock, no randomness.
import type { Candidate } from './candidates.ts';
import { loadHighsModule } from './highs-engine.ts';
import { solveLevelsWithHighs } from './highs-lexicographic.ts';

const HOUR = 3_600_000;
const QUARTER = HOUR / 4;
const BOOKINGS = 32;
const ROOMS = 6;

/** Each booking fits a few rooms at a few starts around its own; they crowd one day. */
function warmUpCandidates(): Candidate[][] {
  let state = 12_345;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state % n;
  };
  return Array.from({ length: BOOKINGS }, (_, booking) => {
    const start = (8 * 4 + next(40)) * QUARTER;
    const duration = (2 + next(10)) * QUARTER;
    const list: Candidate[] = [];
    for (let r = 0; r < ROOMS; r++) {
      if (next(3) === 0) continue;
      for (let k = -4; k <= 4; k++) {
        const shift = k * 15;
        list.push({
          booking,
          roomId: `room-${r}`,
          start: start + k * QUARTER,
          end: start + k * QUARTER + duration,
          shift,
          cost: Math.abs(shift),
          penalty: Math.abs(shift),
        });
      }
    }
    return list.sort((a, b) => a.cost - b.cost);
  });
}

let warming: Promise<void> | null = null;

/**
 * Loads HiGHS once per thread; until it resolves, solve uses javascript-lp-solver only. With
 * `warmUp`, it also runs the made-up solve, so the first real one in this thread does not pay
 * V8's optimisation: worth it where a thread starts before the work arrives.
 */
export function loadHighsEngine(options: { warmUp?: boolean } = {}): Promise<void> {
  if (!options.warmUp) return loadHighsModule();
  warming ??= loadHighsModule().then(() => {
    solveLevelsWithHighs(warmUpCandidates(), Number.POSITIVE_INFINITY);
  });
  return warming;
}
