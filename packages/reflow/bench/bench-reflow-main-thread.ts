// npm run bench:reflow [-- --size medium --seed 1 --reps 20]
// The two parts of a reflow that run on the server's main thread, timed on a generated site in a
// real SQLite file: reading the snapshot (opening hours as instants + the bookings around the
// window) and applying a real plan inside its write transaction. The plan is solved once; each apply
// repetition runs on a fresh copy of the database file, so every one writes the same plan.
// In-run baseline for the snapshot: a read with the wall-clock cache emptied first (each distinct
// day × opening hour through luxon once) next to reads with it warm. The digest of the bookings
// after the apply lets two runs on different code confirm they wrote the same thing.
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { openSqliteStore } from '@reflow/db';
import { generateScenario, renderSiteJson, SCENARIO_SIZES, type ScenarioSize } from '@reflow/seed';
import { loadHighsEngine, solve } from '@reflow/solver';
import { applyPlan } from '../src/apply-plan.ts';
import { importSite } from '../src/import-site.ts';
import { clearLocalTimeCache } from '../src/local-time.ts';
import { localisePlan } from '../src/localise-reasons.ts';
import type { ReflowInput } from '../src/reflow-args.ts';
import { readSnapshot } from '../src/snapshot.ts';

const program = new Command()
  .option('--size <name>', `scenario size, from ${Object.keys(SCENARIO_SIZES).join(', ')}`, 'medium')
  .option('--seed <n>', 'scenario seed', '1')
  .option('--reps <n>', 'repetitions of each timed call', '20')
  .parse();
const opts = program.opts<{ size: string; seed: string; reps: string }>();
if (!(opts.size in SCENARIO_SIZES) || !/^\d+$/.test(opts.seed) || !/^[1-9]\d*$/.test(opts.reps)) {
  console.error(
    `--size must be one of ${Object.keys(SCENARIO_SIZES).join(', ')}; --seed and --reps whole numbers (reps ≥ 1)`,
  );
  process.exit(2);
}
const reps = Number(opts.reps);
const scenario = generateScenario({ seed: Number(opts.seed), ...SCENARIO_SIZES[opts.size as ScenarioSize] });

const dir = mkdtempSync(join(tmpdir(), 'bench-reflow-'));
try {
  const basePath = join(dir, 'base.db');
  const base = openSqliteStore(basePath);
  await base.migrate();
  await importSite(JSON.parse(renderSiteJson(scenario.site)), base);
  const input: ReflowInput = {
    month: scenario.month,
    offlineRooms: scenario.offline_rooms,
    from: scenario.from,
    to: scenario.to,
    dryRun: false,
  };

  // readSnapshot: cold (cache emptied before each call) vs warm.
  const time = async (fn: () => Promise<unknown>) => {
    const t0 = performance.now();
    await fn();
    return performance.now() - t0;
  };
  await readSnapshot(input, base); // warm the JIT and the statement cache once
  let coldMs = 0;
  let warmMs = 0;
  for (let i = 0; i < reps; i++) {
    clearLocalTimeCache();
    coldMs += await time(() => readSnapshot(input, base));
    warmMs += await time(() => readSnapshot(input, base));
  }
  const snapshot = await readSnapshot(input, base);

  await loadHighsEngine();
  const solveStart = performance.now();
  const plan = localisePlan(solve(snapshot.problem), snapshot.timezone);
  const solveMs = performance.now() - solveStart;
  base.connection.sqlite.pragma('wal_checkpoint(TRUNCATE)');
  await base.close();

  // applyPlan: each repetition on a fresh copy of the database, inside one write transaction.
  let applyMs = 0;
  let commitMs = 0;
  let moved = 0;
  let unresolved = 0;
  let outcome = '';
  for (let i = 0; i <= reps; i++) {
    const path = join(dir, `apply-${i}.db`);
    copyFileSync(basePath, path);
    const store = openSqliteStore(path);
    const { connection } = store;
    let inside = 0;
    const total = await time(() =>
      store.transaction(async (tx) => {
        inside = await time(async () => {
          const applied = await applyPlan('bench-task', plan, snapshot, tx);
          moved = applied.moves.length;
          unresolved = applied.unresolved.length;
        });
      }),
    );
    const overlaps = connection.sqlite
      .prepare(
        `SELECT count(*) AS n FROM bookings a JOIN bookings b ON a.room_id = b.room_id AND a.id < b.id
         AND a.start_at < b.end_at AND b.start_at < a.end_at WHERE a.status = 'confirmed' AND b.status = 'confirmed'`,
      )
      .get() as { n: number };
    // What the apply wrote, as a digest: the same plan must leave the same bookings on every code path.
    const state = connection.sqlite
      .prepare('SELECT id, room_id, start_at, end_at, status, version FROM bookings ORDER BY id')
      .raw()
      .all();
    outcome = createHash('sha256').update(JSON.stringify(state)).digest('hex').slice(0, 12);
    await store.close();
    rmSync(path, { force: true });
    rmSync(`${path}-wal`, { force: true });
    rmSync(`${path}-shm`, { force: true });
    if (overlaps.n !== 0) throw new Error(`apply left ${overlaps.n} overlapping confirmed bookings`);
    if (i === 0) continue; // first apply warms the JIT
    applyMs += inside;
    commitMs += total;
  }

  const f = (ms: number) => (ms / reps).toFixed(2);
  console.log(
    `site: ${opts.size} seed ${opts.seed}, ${scenario.site.rooms.length} rooms, ${scenario.offline_rooms.length} offline, ${input.from}..${input.to} (${scenario.site.site.timezone})`,
  );
  console.log(
    `snapshot: ${snapshot.problem.bookings.length} bookings, ${snapshot.problem.rooms.length} rooms × ${snapshot.problem.rooms[0]?.open.length ?? 0} days of opening hours`,
  );
  console.log(
    `plan: ${moved} moves, ${unresolved} unresolved (solved once on this thread in ${solveMs.toFixed(0)} ms); bookings after apply: sha256 ${outcome}`,
  );
  console.log(`${reps} repetitions, ms per call:`);
  console.log(`  readSnapshot, wall-clock cache emptied first:           ${f(coldMs)}`);
  console.log(`  readSnapshot, wall-clock cache warm:                    ${f(warmMs)}`);
  console.log(`  applyPlan inside the transaction:                       ${f(applyMs)}`);
  console.log(`  applyPlan + BEGIN IMMEDIATE/COMMIT (synchronous=FULL):  ${f(commitMs)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
