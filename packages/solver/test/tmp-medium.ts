import { solve, checkPlan } from '../src/index.ts';
import { mediumInstance } from './medium-instance.ts';
for (const seed of [7, 8, 9]) {
const p = mediumInstance(seed);
const t = performance.now();
const plan = solve(p);
console.log(seed, (performance.now() - t).toFixed(0), 'ms', plan.affected, plan.moves.length, plan.movedBound, plan.optimal, plan.components, plan.totalShiftMinutes, checkPlan(p, plan).length);
const codes: Record<string, number> = {};
for (const u of plan.unresolved) codes[u.code] = (codes[u.code] ?? 0) + 1;
console.log(codes, plan.unresolved.slice(0, 3));
}
