// Rewrites seed/riverside-2026-09.json from the generator: `npx tsx seed/write-demo.ts`.
// Run it after changing anything the demo depends on; the demo-file test fails until you do.
import { writeFileSync } from 'node:fs';
import { demoMonth } from './demo-month.ts';
import { renderSiteJson } from './site-json.ts';
import { DEMO_SITE_PATH } from './demo-scenario.ts';

const site = demoMonth();
writeFileSync(DEMO_SITE_PATH, renderSiteJson(site));
console.log(
  `wrote ${DEMO_SITE_PATH}: ${site.rooms.length} rooms, ${site.series.length} series, ${site.bookings.length} bookings`,
);
