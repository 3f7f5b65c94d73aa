// The snapshot is the site's days, whatever zone the server process runs in: the same windows
// read under TZ=UTC and under zones whose clock change skips midnight give the same problem.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { importSite } from '../src/index.ts';
import { openReflowTestStore, type ReflowTestStore } from './reflow-test-store.ts';
import { childScript } from '../../../scripts/test-build.mjs';

const PRINTER = fileURLToPath(new URL('./fixtures/print-snapshot.ts', import.meta.url));
let opened: ReflowTestStore;

before(async () => {
  opened = await openReflowTestStore();
  await importSite(JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8')), opened.store);
});
after(() => opened.close());

function snapshotsUnder(tz: string, windows: { from: string; to: string }[]): unknown {
  const out = execFileSync(process.execPath, [...childScript(PRINTER), opened.location, JSON.stringify(windows)], {
    env: { ...process.env, TZ: tz },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(out);
}

// Windows whose margin days (one either side) cross each zone's midnight clock change:
// Santiago skips 2026-09-06 00:00 (to 01:00), Havana skips 2026-03-08 00:00.
const CASES = [
  {
    tz: 'America/Santiago',
    windows: [
      { from: '2026-09-07', to: '2026-09-20' },
      { from: '2026-09-01', to: '2026-09-05' },
      { from: '2026-09-01', to: '2026-09-30' },
    ],
  },
  {
    tz: 'America/Havana',
    windows: [
      { from: '2026-03-09', to: '2026-03-12' },
      { from: '2026-03-01', to: '2026-03-07' },
      { from: '2026-03-01', to: '2026-03-31' },
    ],
  },
];

for (const { tz, windows } of CASES)
  test(`under TZ=${tz} the snapshot has every day of opening hours, as under TZ=UTC`, () => {
    const reference = snapshotsUnder('UTC', windows) as { problem: { rooms: { open: unknown[] }[] } }[];
    // The reference itself: the window plus a margin day either side, for every room.
    windows.forEach(({ from, to }, i) => {
      const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1 + 2;
      for (const room of reference[i].problem.rooms) assert.equal(room.open.length, days);
    });
    assert.deepEqual(snapshotsUnder(tz, windows), reference);
  });
