// Who makes the traffic: mostly raw 2026-07-28 task clients, some on the official ext-tasks client,
// a few synchronous callers and background:true hosts, and one operator cancelling over REST.
import { createRng } from '@reflow/seed';
import { runBackgroundClient } from './background-client.ts';
import { runOperator } from './operator-client.ts';
import { runRawTaskClient } from './raw-task-client.ts';
import { runSdkTaskClient } from './sdk-task-client.ts';
import type { SoakOptions } from './soak-options.ts';
import { runSyncCallClient } from './sync-call-client.ts';
import type { TrafficContext } from './traffic-context.ts';

export function startTraffic(ctx: TrafficContext, o: SoakOptions): { done: Promise<unknown>; description: string } {
  const sdk = Math.max(1, Math.round(o.clients * 0.15));
  const sync = Math.max(1, Math.round(o.clients * 0.1));
  const background = Math.max(1, Math.round(o.clients * 0.1));
  const raw = Math.max(1, o.clients - sdk - sync - background);
  const rng = (i: number) => createRng(o.seed * 1_000 + i);
  let i = 0;
  const runs: Promise<unknown>[] = [];
  for (let n = 0; n < raw; n++) runs.push(runRawTaskClient(ctx, rng(i++)));
  for (let n = 0; n < sdk; n++) runs.push(runSdkTaskClient(ctx, rng(i++)));
  for (let n = 0; n < sync; n++) runs.push(runSyncCallClient(ctx, rng(i++)));
  for (let n = 0; n < background; n++) runs.push(runBackgroundClient(ctx, rng(i++)));
  runs.push(runOperator(ctx, rng(i), o.operatorEveryMs));
  return {
    done: Promise.all(runs),
    description: `${raw + sdk + sync + background} clients (${raw} raw tasks, ${sdk} official ext-tasks, ${sync} synchronous, ${background} background:true)`,
  };
}
