// What every traffic client shares: where the server is, the site, the counters and the ledger.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '@reflow/seed';
import type { SoakSite } from './soak-site.ts';
import type { TaskLedger } from './task-ledger.ts';
import type { TrafficStats } from './traffic-stats.ts';

export interface TrafficContext {
  mcpUrl: string;
  /** http://host:port, for the REST API. */
  baseUrl: string;
  site: SoakSite;
  stats: TrafficStats;
  ledger: TaskLedger;
  /** New work starts only before this instant (epoch ms). */
  stopAt: number;
  /** How long one client waits for one task to end before giving up on it. */
  taskWaitMs: number;
  /** Overrides the server's pollIntervalMs. */
  pollMs?: number;
}

export const trafficOpen = (ctx: TrafficContext) => Date.now() < ctx.stopAt;

/** A think time between a client's calls: 0–`maxMs`, drawn from the client's own stream. */
export const think = (rng: Rng, maxMs: number) => sleep(rng.int(0, maxMs));

/** The interval to wait before the next poll: the override, else what the server said (50 ms at least). */
export const pollDelay = (ctx: TrafficContext, serverSaid: unknown) =>
  ctx.pollMs ?? Math.max(50, typeof serverSaid === 'number' ? serverSaid : 1_000);
