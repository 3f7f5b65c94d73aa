// Distinct reflow_month requests over a site, in a fixed order: an identical request from the same
// owner while one is working returns that task (dedupe), which would measure a lookup, not a create.
import type { Scenario } from '@reflow/seed';

export interface ReflowArgs {
  month: string;
  offline_rooms: string[];
  from: string;
  to: string;
  dry_run: boolean;
}

/** The n-th distinct dry-run request: a pair of rooms offline for one to four days. */
export function* distinctReflows(scenario: Scenario): Generator<ReflowArgs> {
  const rooms = scenario.site.rooms.map((r) => r.id);
  const days = new Date(Date.UTC(Number(scenario.month.slice(0, 4)), Number(scenario.month.slice(5)), 0)).getUTCDate();
  const day = (d: number) => `${scenario.month}-${String(d).padStart(2, '0')}`;
  for (let length = 1; length <= 4; length++)
    for (let first = 1; first + length - 1 <= days; first++)
      for (let a = 0; a < rooms.length; a++)
        for (let b = a + 1; b < rooms.length; b++)
          yield {
            month: scenario.month,
            offline_rooms: [rooms[a], rooms[b]],
            from: day(first),
            to: day(first + length - 1),
            dry_run: true,
          };
}

/** The same requests without end: after the last one, the first again (by then long finished). */
export function reflowStream(scenario: Scenario): () => ReflowArgs {
  let it = distinctReflows(scenario);
  return () => {
    let next = it.next();
    if (next.done) {
      it = distinctReflows(scenario);
      next = it.next();
    }
    return next.value as ReflowArgs;
  };
}
