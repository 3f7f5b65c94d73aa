// The soak, short: a real server process under mixed task traffic for ~25 s while the booking
// editor works the same file; every check of the full soak must pass (see apps/server/soak).
// It measures memory growth and waits, so `npm test` runs it alone (scripts/run-tests.mjs). Its
// TTL is half again the default for so short a run: a task queued behind the others on a slow
// machine must still end before it expires, and the sweeper still deletes tasks during the run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runSoak } from '../../soak/run-soak.ts';

test('a short soak: nothing stuck, nothing lost, bookings consistent, no growth', async () => {
  // RSS in thirds of 8 s: unchanged code measured +0.8 % to +17.4 % from the middle third to the
  // last over 26 runs on 6 December (steps of the allocator and the JIT, not a leak). A leak fast
  // enough to show in 25 s (about 900 MB a minute) still fails here; slower ones are for the
  // 10-minute soak, which keeps the 15 % limit.
  const outcome = await runSoak({
    minutes: 0.4,
    ttlMs: 15_000,
    clients: 6,
    seed: 7,
    sampleEveryMs: 1_000,
    rssTolerance: 0.3,
  });
  assert.ok(outcome.checks.length >= 10, outcome.report);
  const failed = outcome.checks.filter((c) => !c.pass).map((c) => c.name);
  assert.deepEqual(failed, [], outcome.report);
  assert.equal(outcome.passed, true, outcome.report);
});
