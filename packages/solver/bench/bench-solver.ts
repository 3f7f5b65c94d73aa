// npm run bench:solver [-- --sizes demo,small,medium,large,campus --seed 1 --js-only]
// For each size: our solver, then the references on the same instance, each in its own child
// process so peak memory (maxRSS) is honest: a greedy baseline (first fit in start order) and
// HiGHS on an independent model. Prints one table; figures are wall-clock unless marked cpu.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import Table from 'cli-table3';
import { Command } from 'commander';
import { BENCH_SIZES, isBenchSize, type BenchSize } from './scenarios.ts';

const program = new Command()
  .option('--sizes <list>', `comma-separated, from ${BENCH_SIZES.join(', ')}`, BENCH_SIZES.join(','))
  .option('--seed <n>', 'scenario seed for the generated sizes', '1')
  .option('--js-only', 'run our solver with javascript-lp-solver for every component (no second engine)')
  .parse();
const { sizes: sizeList, seed, jsOnly } = program.opts<{ sizes: string; seed: string; jsOnly?: boolean }>();
const sizes = sizeList.split(',').map((s) => s.trim());
const unknown = sizes.filter((s) => !isBenchSize(s));
if (unknown.length > 0 || !/^\d+$/.test(seed)) {
  console.error(
    `unknown size ${unknown.join(', ')} (choose from ${BENCH_SIZES.join(', ')}), or a seed that is not a whole number`,
  );
  process.exit(2);
}

const CASE = fileURLToPath(new URL('./bench-case.ts', import.meta.url));
const CHILD_TIMEOUT_MS = 10 * 60_000;

function runCase(size: BenchSize, mode: 'ours' | 'ours-js' | 'reference'): Record<string, any> {
  const child = spawnSync(process.execPath, ['--import', 'tsx', CASE, size, seed, mode], {
    encoding: 'utf8',
    timeout: CHILD_TIMEOUT_MS,
    maxBuffer: 16 * 1024 * 1024,
  });
  const line = child.stdout.trim().split('\n').pop() ?? '';
  if (child.status !== 0 || !line.startsWith('{')) {
    throw new Error(
      `${size} ${mode} failed (status ${child.status}, signal ${child.signal}): ${child.stderr.slice(-2000)}`,
    );
  }
  return JSON.parse(line);
}

const s = (ms: number) => (ms / 1000).toFixed(ms < 10_000 ? 2 : 1);
const yes = (b: boolean) => (b ? '✓' : '–');
const table = new Table({
  style: { head: [], border: [] },
  head: [
    'size',
    'rooms/off',
    'affected',
    'moved (≤bound)',
    'shift min',
    'split',
    'proven m/s/ser',
    'ours s (cpu)',
    'engine load s',
    'peak MiB',
    'greedy moved (short)',
    'HiGHS moved',
    'HiGHS shift',
    'HiGHS s (cpu)',
    'HiGHS MiB',
    'ours/HiGHS',
    'same optimum',
  ],
});
for (const size of sizes as BenchSize[]) {
  process.stderr.write(`${size}: ours… `);
  const ours = runCase(size, jsOnly ? 'ours-js' : 'ours');
  process.stderr.write(`${s(ours.solveMs)} s; references… `);
  const ref = runCase(size, 'reference');
  process.stderr.write(`${s(ref.highsMs)} s\n`);
  const same = ref.highs.optimal && ref.highs.moved === ours.moved && ref.highs.totalShiftMinutes === ours.shift;
  table.push([
    size,
    `${ours.rooms}/${ours.offline}`,
    ours.affected,
    ours.movedBound === ours.moved ? `${ours.moved}` : `${ours.moved} (≤${ours.movedBound})`,
    ours.shift,
    ours.split,
    `${yes(ours.optimal.moved)}/${yes(ours.optimal.shift)}/${yes(ours.optimal.series)}`,
    `${s(ours.solveMs)} (${s(ours.cpuMs)})`,
    s(ours.loadMs),
    ours.peakMiB,
    `${ref.greedy.moved} (${ours.moved - ref.greedy.moved})`,
    ref.highs.optimal ? ref.highs.moved : `≥${ref.highs.moved} (cut short)`,
    ref.highs.optimal ? ref.highs.totalShiftMinutes : '–',
    `${s(ref.highsMs)} (${s(ref.highsCpuMs)})`,
    ref.peakMiB,
    ref.highs.optimal ? (ours.solveMs / ref.highsMs).toFixed(2) : '–',
    ref.highs.optimal ? (same ? 'yes' : 'NO') : 'unknown',
  ]);
}
console.log(table.toString());
console.log(
  `seed ${seed}; ours = ${jsOnly ? 'javascript-lp-solver for every component' : 'javascript-lp-solver for small components, HiGHS for capped models over 150 variables'};`,
);
console.log('greedy short = how many fewer bookings first-fit-in-start-order moves than ours; peak = child maxRSS;');
console.log(
  'engine load = loadHighsEngine({ warmUp: true }) before the solve (WebAssembly load and a warm-up solve, once per thread; not in "ours s");',
);
console.log('HiGHS gets 90 s in all and is cut short beyond that (its count is then only what it reached).');
