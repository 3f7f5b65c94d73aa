// How busy the whole machine's cores were over a load run (every process: the nodes, PostgreSQL, the
// load tool), so a figure that stops growing with more nodes shows whether the cores ran out.
import { readFileSync } from 'node:fs';
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

/**
 * The machine's CPU time, idle and in all. On Linux from /proc/stat, every field (proc(5)):
 * os.cpus() leaves out softirq (the loopback's packet work, 6–10 % of these cores during a tasks/get
 * run) and steal, which made the cores look idler than they were; iowait counts as idle.
 */
function totals(): { idle: number; total: number } {
  const line = procStatCpuLine();
  if (line) {
    // user nice system idle iowait irq softirq steal (guest time is already counted in user).
    const [user, nice, system, idle, iowait, irq, softirq, steal] = line;
    return { idle: idle + iowait, total: user + nice + system + idle + iowait + irq + softirq + steal };
  }
  let idle = 0;
  let total = 0;
  for (const { times } of cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { idle, total };
}

function procStatCpuLine(): number[] | undefined {
  try {
    const first = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const fields = first.trim().split(/\s+/);
    if (fields[0] !== 'cpu' || fields.length < 9) return undefined;
    return fields.slice(1, 9).map(Number);
  } catch {
    return undefined;
  }
}
