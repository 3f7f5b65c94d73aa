// The site the soak runs on: a generated medium campus (24 rooms, a month of bookings), written
// as the seed file the server imports on its first start into a fresh temporary database.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DateTime } from 'luxon';
import { generateScenario, renderSiteJson, SCENARIO_SIZES, type Rng } from '@reflow/seed';

export interface SoakSite {
  dir: string;
  databasePath: string;
  seedFile: string;
  month: string;
  timezone: string;
  roomIds: string[];
  /** Days of the month, YYYY-MM-DD. */
  days: string[];
}

export function writeSoakSite(seed: number): SoakSite {
  const scenario = generateScenario({ seed, ...SCENARIO_SIZES.medium });
  const dir = mkdtempSync(join(tmpdir(), 'reflow-soak-'));
  const seedFile = join(dir, 'site.json');
  writeFileSync(seedFile, renderSiteJson(scenario.site));
  const first = DateTime.fromISO(`${scenario.month}-01`);
  const days = Array.from({ length: first.daysInMonth! }, (_, i) => first.plus({ days: i }).toISODate()!);
  return {
    dir,
    databasePath: join(dir, 'reflow.db'),
    seedFile,
    month: scenario.month,
    timezone: scenario.site.site.timezone,
    roomIds: scenario.site.rooms.map((r) => r.id),
    days,
  };
}

export type ReflowArgs = { month: string; offline_rooms: string[]; dry_run: boolean; from?: string; to?: string };

/** reflow_month arguments a planner might send: 1–3 rooms offline, a window of the month or all of it, half dry runs. */
export function randomReflowArgs(rng: Rng, site: SoakSite): ReflowArgs {
  const rooms = rng.shuffle(site.roomIds).slice(0, rng.int(1, 3));
  const args: ReflowArgs = { month: site.month, offline_rooms: rooms, dry_run: rng.chance(0.5) };
  if (rng.chance(0.7)) {
    const from = rng.int(0, site.days.length - 1);
    const to = Math.min(site.days.length - 1, from + rng.int(0, 9));
    args.from = site.days[from];
    args.to = site.days[to];
  }
  return args;
}
