// Solver scenarios: a generated campus month plus the outage to reflow, from a handful of rooms
// to a whole campus. Deterministic by seed; the utilisation (30–70 % of opening hours) and which
// rooms go offline are drawn from it too, so one number names one instance.
import type { SiteFile } from './site-file.ts';
import { generateSite } from './generate-site.ts';
import { createRng, forkSeed } from './prng.ts';

export interface ScenarioOptions {
  seed: number;
  rooms: number;
  /** How many rooms go offline (drawn by the seed, never all of them). */
  offline: number;
  /** YYYY-MM; default 2026-10, whose last Sunday is the Europe/London clock change. */
  month?: string;
  /** Offline days, inclusive, YYYY-MM-DD; default the 14th to the 27th (across the change). */
  from?: string;
  to?: string;
  /** Multiplies every room's booked share; default drawn so rooms are 30–70 % booked. */
  density?: number;
  timezone?: string;
}

export interface Scenario {
  site: SiteFile;
  month: string;
  offline_rooms: string[];
  from: string;
  to: string;
}

/** Named sizes the benchmark and tests share: rooms, offline rooms and the outage length. */
export const SCENARIO_SIZES = {
  small: { rooms: 12, offline: 3 },
  medium: { rooms: 24, offline: 8 },
  large: { rooms: 40, offline: 16 },
  campus: { rooms: 200, offline: 50, from: '2026-10-01', to: '2026-10-31' },
} as const satisfies Record<string, Omit<ScenarioOptions, 'seed'>>;

export type ScenarioSize = keyof typeof SCENARIO_SIZES;

export function generateScenario(options: ScenarioOptions): Scenario {
  const { seed, rooms, offline } = options;
  if (!Number.isInteger(offline) || offline < 1 || offline >= rooms) {
    throw new Error(`offline must be an integer from 1 to rooms − 1 (${rooms - 1}), got ${offline}`);
  }
  const month = options.month ?? '2026-10';
  const rng = createRng(forkSeed(seed, 'scenario'));
  // Room shares are 0.5–0.6 of opening hours; 0.6–1.15 of that is 30–70 %.
  const density = options.density ?? 0.6 + 0.55 * rng.next();
  const site = generateSite({
    seed,
    month,
    rooms,
    density,
    timezone: options.timezone,
    siteName: `Scenario ${seed} (${rooms} rooms)`,
  });
  const offlineRooms = rng
    .shuffle(site.rooms.map((r) => r.id))
    .slice(0, offline)
    .sort();
  return {
    site,
    month,
    offline_rooms: offlineRooms,
    from: options.from ?? `${month}-14`,
    to: options.to ?? `${month}-27`,
  };
}
