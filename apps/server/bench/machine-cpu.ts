// How busy the whole machine's cores were over a load run (every process: the nodes, PostgreSQL, the
// load tool), so a figure that stops growing with more nodes shows whether the cores ran out.
import { cpus } from 'node:os';

/** Starts a measurement; the function it returns answers the share of all cores busy since (0–1). */
export function machineCpu(): () => number {
  const before = totals();
  return () => {
    const after = totals();
    const total = after.total - before.total;
    return total > 0 ? 1 - (after.idle - before.idle) / total : 0;
  };
}

function totals(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const { times } of cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}
