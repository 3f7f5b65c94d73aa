// The crash test's tools: the real server as a child process (its own process group, so SIGKILL
// takes everything it started), a seeded random stream, and a bounded poll.
import { setTimeout as sleep } from 'node:timers/promises';
import { createRng } from '@reflow/seed';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

export { ServerExitedEarly, startServerProcess, type ServerProcess } from '../../harness/server-process.ts';

/** mulberry32 (the seed generator's own), so a failing run can be repeated with CRASH_SEED. */
export const seededRandom = createRng;

/** Polls `probe` until it returns a value, or gives up at the deadline with undefined. */
export async function pollFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs: number,
  everyMs = 10,
): Promise<T | undefined> {
  const deadline = loadAwareDeadline(timeoutMs);
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (deadline.passed()) return undefined;
    await sleep(everyMs);
  }
}
