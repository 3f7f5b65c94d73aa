import { solve } from '../src/index.ts';
import { randomInstance } from './random-instance.ts';
const codes: Record<string, number> = {};
let comps = 0, big = 0, moved = 0;
for (let s = 1; s <= 200; s++) {
  const p = randomInstance(s);
  const plan = solve(p, { maxCandidatesPerBooking: 1000 });
  comps += plan.components; moved += plan.moves.length;
  for (const u of plan.unresolved) codes[u.code] = (codes[u.code] ?? 0) + 1;
  if (s < 4) console.log(plan.unresolved);
}
console.log(codes, comps, moved);
