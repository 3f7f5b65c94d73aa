// One benchmark measurement in its own process, so its peak memory (maxRSS) is its own: either
// our solver (ours-js: javascript-lp-solver for every component, to show what the second engine
// buys), or the references (the greedy baseline and HiGHS) on the same instance. Prints one JSON
// line. Usage: tsx bench-case.ts <size> <seed> ours|ours-js|reference
import { loadHighsEngine, solve } from '../src/index.ts';
import { greedyBaseline } from './greedy-baseline.ts';
import { loadHighs, solveReference } from './highs-reference.ts';
import { enumerate } from './placements.ts';
import { isBenchSize, scenarioFor } from './scenarios.ts';
import { scenarioProblem } from './site-problem.ts';

const [size, seedText = '', mode] = process.argv.slice(2);
if (!isBenchSize(size) || !/^\d+$/.test(seedText) || !['ours', 'ours-js', 'reference'].includes(mode)) {
  console.error('usage: bench-case.ts <demo|small|medium|large|campus> <seed> <ours|ours-js|reference>');
  process.exit(2);
}
const scenario = scenarioFor(size, Number(seedText));
const problem = scenarioProblem(scenario);
/** CPU time this process spent since `from` (user + system), in ms: less at the mercy of a busy machine than wall time. */
const cpuSince = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};
const peakMiB = () => Math.round(process.resourceUsage().maxRSS / 1024);
const rooms = {
  rooms: scenario.site.rooms.length,
  offline: scenario.offline_rooms.length,
  bookings: scenario.site.bookings.length,
};

if (mode === 'ours' || mode === 'ours-js') {
  let t = performance.now();
  // A long-lived solve thread warms the engine before work arrives; the load column shows its cost.
  await loadHighsEngine({ warmUp: true });
  const loadMs = performance.now() - t;
  t = performance.now();
  const cpu = process.cpuUsage();
  const plan = solve(problem, mode === 'ours-js' ? { maxJsLpVariables: 0 } : {});
  const solveMs = performance.now() - t;
  const cpuMs = cpuSince(cpu);
  console.log(
    JSON.stringify({
      ...rooms,
      affected: plan.affected,
      moved: plan.moves.length,
      movedBound: plan.movedBound,
      shift: plan.totalShiftMinutes,
      split: plan.seriesSplit,
      optimal: plan.optimal,
      components: plan.components,
      engines: plan.engines,
      solveMs,
      cpuMs,
      loadMs,
      peakMiB: peakMiB(),
    }),
  );
} else {
  let t = performance.now();
  const greedy = greedyBaseline(enumerate(problem));
  const greedyMs = performance.now() - t;
  await loadHighs();
  // Warmed like ours (the small scenario's instance, its own model), so the ratio compares warm engines.
  await solveReference(scenarioProblem(scenarioFor('small', 1)));
  t = performance.now();
  const cpu = process.cpuUsage();
  const highs = await solveReference(problem);
  const highsMs = performance.now() - t;
  console.log(JSON.stringify({ greedy, greedyMs, highs, highsMs, highsCpuMs: cpuSince(cpu), peakMiB: peakMiB() }));
}
