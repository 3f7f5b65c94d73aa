// An outage is not a crash: an attempt that meets the store away (unreachable, its pool exhausted, a
// lock wait timed out) waits for it, bounded, and goes on. These are the waits.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '@reflow/db';

/** How long an attempt waits for the store before it gives up as a crash would (configurable: OUTAGE_WAIT_MS). */
export const OUTAGE_WAIT_MS = 120_000;

/**
 * Resolves true once the store answers a ping again, false when `deadline` (epoch ms) passes first or
 * `signal` aborts (the attempt was cancelled or the node is stopping).
 */
export async function waitForStore(store: Store, deadline: number, signal?: AbortSignal): Promise<boolean> {
  for (let delay = 100; ; delay = Math.min(delay * 2, 1_000)) {
    if (signal?.aborted) return false;
    try {
      await store.ping();
      return true;
    } catch {
      // Still away: wait and ask again.
    }
    if (Date.now() + delay > deadline) return false;
    await sleep(delay);
  }
}
