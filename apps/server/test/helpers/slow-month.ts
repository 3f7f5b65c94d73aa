// A month whose reflow is still solving well after the solve is seen under way. The demo month's
// two weeks take a fifth of a second from the first progress event to completed (most of it the
// solve thread's first load), so a test that acts once it sees a solve running (a kill, a SIGTERM,
// a cancel, a freeze) and needs it still running could, on a loaded machine, act after the end:
// CI saw that once. The generated 24-room month, 8 rooms offline, takes over a second on a quiet
// machine, so the act lands inside the solve.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateScenario, renderSiteJson, SCENARIO_SIZES } from '@reflow/seed';

const SCENARIO = generateScenario({ seed: 1, ...SCENARIO_SIZES.medium });

/** reflow_month's arguments for the month's outage: 8 rooms offline for two weeks. */
export const SLOW_REFLOW = {
  month: SCENARIO.month,
  offline_rooms: SCENARIO.offline_rooms,
  from: SCENARIO.from,
  to: SCENARIO.to,
};

let seedFile: string | undefined;

/** The month as a site file, for SEED_FILE (a server's first start seeds it) or an import; written once per process. */
export function slowMonthSeedFile(): string {
  if (seedFile) return seedFile;
  const dir = mkdtempSync(join(tmpdir(), 'reflow-slow-month-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  seedFile = join(dir, 'site.json');
  writeFileSync(seedFile, renderSiteJson(SCENARIO.site));
  return seedFile;
}
