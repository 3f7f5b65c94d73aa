import { solve, checkPlan } from '../src/index.ts';
import { mediumInstance } from './medium-instance.ts';
for (const seed of [1,2,3,4,5,6,7,8,9,10]) {
const p = mediumInstance(seed, 300);
p.bookings = p.bookings.map(b => ({...b, flexMinutes: b.flexMinutes * 2}));
const t = performance.now();
const plan = solve(p, {}, {});
console.log(seed, (performance.now() - t).toFixed(0), 'ms', plan.affected, plan.moves.length, plan.movedBound, plan.optimal, plan.components, plan.totalShiftMinutes, checkPlan(p, plan).length);
}
