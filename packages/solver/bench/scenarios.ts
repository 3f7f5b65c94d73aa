// The benchmark's sizes: the committed demo month, then generated campuses up to 200 rooms.
import {
  DEMO_SCENARIO,
  DEMO_SITE_PATH,
  generateScenario,
  readSiteFile,
  SCENARIO_SIZES,
  type Scenario,
  type ScenarioSize,
} from '@reflow/seed';

export const BENCH_SIZES = ['demo', 'small', 'medium', 'large', 'campus'] as const;
export type BenchSize = (typeof BENCH_SIZES)[number];

export function isBenchSize(name: string): name is BenchSize {
  return (BENCH_SIZES as readonly string[]).includes(name);
}

export function scenarioFor(size: BenchSize, seed: number): Scenario {
  if (size === 'demo') {
    return {
      site: readSiteFile(DEMO_SITE_PATH),
      month: DEMO_SCENARIO.month,
      offline_rooms: [...DEMO_SCENARIO.offline_rooms],
      from: DEMO_SCENARIO.from,
      to: DEMO_SCENARIO.to,
    };
  }
  return generateScenario({ seed, ...SCENARIO_SIZES[size satisfies ScenarioSize] });
}
