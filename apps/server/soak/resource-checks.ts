// Growth over the run, from the sampler: memory flat after warm-up, the WAL bounded and
// checkpointed, the tasks table held to one TTL's worth of tasks by the sweeper.
import { check, type CheckResult } from './check-result.ts';
import { peek } from '../harness/peek.ts';
import type { Sample } from './sampler.ts';

/** Last third's mean RSS may exceed the middle third's by this much (allocator and JIT noise). */
export const RSS_TOLERANCE = 0.15;
/** The WAL never needs to exceed this: autocheckpoint restarts it at ~4 MB (1000 pages). */
export const WAL_BOUND_MB = 32;
/** The sweeper runs every 5 s; a row may outlive its TTL by that, plus a sweep in flight. */
const SWEEP_SLACK_MS = 10_000;

export const MB = 1024 * 1024;

export function thirds(samples: Sample[], trafficSeconds: number): [Sample[], Sample[], Sample[]] {
  const during = samples.filter((s) => s.t <= trafficSeconds + 0.5);
  const third = trafficSeconds / 3;
  return [
    during.filter((s) => s.t < third),
    during.filter((s) => s.t >= third && s.t < 2 * third),
    during.filter((s) => s.t >= 2 * third),
  ];
}

export function checkRss(
  samples: Sample[],
  trafficSeconds: number,
  tolerance = RSS_TOLERANCE,
): { slopeMbPerMin: number; result: CheckResult } {
  const [, middle, last] = thirds(samples, trafficSeconds);
  const after = [...middle, ...last];
  const slopeMbPerMin = slope(after.map((s) => [s.t / 60, s.rssMb]));
  if (!middle.length || !last.length)
    return { slopeMbPerMin, result: check('RSS flat after warm-up', false, 'too few samples') };
  const m = mean(middle.map((s) => s.rssMb));
  const l = mean(last.map((s) => s.rssMb));
  return {
    slopeMbPerMin,
    result: check(
      'RSS flat after warm-up',
      l <= m * (1 + tolerance),
      `mean ${m.toFixed(0)} MB (middle third) → ${l.toFixed(0)} MB (last third), ${pct(l / m - 1)} (limit +${Math.round(tolerance * 100)} %); slope ${slopeMbPerMin.toFixed(2)} MB/min`,
    ),
  };
}

export function checkWal(samples: Sample[], trafficSeconds: number): CheckResult {
  const [, middle, last] = thirds(samples, trafficSeconds);
  const maxOf = (list: Sample[]) => Math.max(0, ...list.map((s) => s.wal.bytes)) / MB;
  const after = maxOf([...middle, ...last]);
  const restartsIn = (list: Sample[]) => {
    const seqs = list.map((s) => s.wal.checkpointSeq).filter((n): n is number => n !== undefined);
    return seqs.length ? seqs.at(-1)! - seqs[0] : 0;
  };
  const restarts = restartsIn(samples);
  const lastRestarts = restartsIn(last);
  // The file's size is a high-water mark (it does not shrink): a burst of writes under a long read
  // raises it for good. A WAL growing without bound is one that stopped restarting: larger in the
  // last third with no restart there.
  const growing = maxOf(last) > maxOf(middle) * 1.25 + 1 && lastRestarts === 0;
  return check(
    'WAL bounded, checkpoints happen',
    after <= WAL_BOUND_MB && restarts > 0 && !growing,
    `max ${after.toFixed(1)} MB after warm-up (bound ${WAL_BOUND_MB} MB; middle ${maxOf(middle).toFixed(1)} → last third ${maxOf(last).toFixed(1)} MB); log restarted by checkpoints ${restarts}× (${lastRestarts}× in the last third)`,
  );
}

export function checkSweeper(databasePath: string, ttlMs: number, samples: Sample[]): CheckResult {
  const now = Date.now();
  const { stale, rows, recent } = peek(databasePath, (db) => ({
    rows: db.prepare('SELECT count(*) FROM tasks').pluck().get() as number,
    stale: db
      .prepare('SELECT count(*) FROM tasks WHERE created_at < ?')
      .pluck()
      .get(now - ttlMs - SWEEP_SLACK_MS) as number,
    recent: db
      .prepare('SELECT count(*) FROM tasks WHERE created_at >= ?')
      .pluck()
      .get(now - ttlMs - SWEEP_SLACK_MS) as number,
  }));
  const firstTombstones = samples[0]?.expired ?? 0;
  const lastTombstones = samples.at(-1)?.expired ?? 0;
  return check(
    'TTL sweeper bounds the tasks table',
    stale === 0 && lastTombstones > firstTombstones,
    `${rows} rows at the end, ${recent} created in the last TTL+${SWEEP_SLACK_MS / 1000} s, ${stale} older; tombstones ${firstTombstones} → ${lastTombstones}`,
  );
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  if (points.length < 2) return 0;
  const mx = mean(points.map((p) => p[0]));
  const my = mean(points.map((p) => p[1]));
  const num = points.reduce((a, [x, y]) => a + (x - mx) * (y - my), 0);
  const den = points.reduce((a, [x]) => a + (x - mx) ** 2, 0);
  return den ? num / den : 0;
}
