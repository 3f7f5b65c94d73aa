// The committed JSON is exactly what write-demo.ts produces: the generator is deterministic and
// the file cannot drift from it. If this fails, run `npx tsx seed/write-demo.ts`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { DEMO_SITE_PATH, demoMonth, renderSiteJson } from '../index.ts';

test('DEMO_SITE_PATH is an absolute path to the committed JSON', () => {
  assert.ok(isAbsolute(DEMO_SITE_PATH));
  assert.match(DEMO_SITE_PATH, /seed[\\/]riverside-2026-09\.json$/);
});

test('the JSON on disk equals what write-demo.ts would write', () => {
  const onDisk = readFileSync(DEMO_SITE_PATH, 'utf8');
  assert.equal(onDisk, renderSiteJson(demoMonth()), 'seed JSON is stale: run `npx tsx seed/write-demo.ts`');
});

test('the file stays commit-sized', () => {
  assert.ok(readFileSync(DEMO_SITE_PATH).length < 400_000);
});
