// The seed's public face: the scenario generator, the demo month and where it lives on disk.
// `DEMO_SITE_PATH` is the committed JSON (rewrite it with `npx tsx seed/write-demo.ts`);
// `demoMonth()` regenerates the same object; `generateSite()` makes other campuses and months.
export type { SiteFile, SiteInfo, SiteRoom, SiteSeries, SiteBooking, BookingStatus } from './site-file.ts';
export type { GenerateOptions } from './generate-site.ts';
export type { FixedBooking, Hold } from './place-fixed.ts';
export type { PinCount } from './pin-count.ts';
export { generateSite } from './generate-site.ts';
export { demoMonth, DEMO_SEED } from './demo-month.ts';
export { DEMO_SCENARIO, DEMO_AFFECTED, DEMO_SITE_PATH } from './demo-scenario.ts';
export { renderSiteJson, readSiteFile } from './site-json.ts';
export type { Scenario, ScenarioOptions, ScenarioSize } from './generate-scenario.ts';
export { generateScenario, SCENARIO_SIZES } from './generate-scenario.ts';
export { createRng, type Rng } from './prng.ts';
