// Small generated campuses for the tests that compare against HiGHS and check feasibility:
// 4–10 rooms, 1–3 offline for 1–4 days of October 2026, so competition is real but a test
// run stays short. Deterministic by seed.
import { generateScenario, type Scenario } from '@reflow/seed';
import { prng } from './helpers.ts';

export function smallScenario(seed: number, window?: { from: string; to: string }): Scenario {
  const r = prng(seed);
  const rooms = r.int(4, 10);
  const offline = r.int(1, Math.min(3, rooms - 1));
  const first = r.int(5, 26);
  const from = `2026-10-${String(first).padStart(2, '0')}`;
  const to = `2026-10-${String(Math.min(31, first + r.int(0, 3))).padStart(2, '0')}`;
  return generateScenario({ seed, rooms, offline, ...(window ?? { from, to }) });
}
