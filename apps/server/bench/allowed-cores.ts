// The cores this process may run on (a container's cpuset can leave out some of the machine's), so
// a node pinned to "core i" is pinned to one it may use. Linux: /proc/self/status; elsewhere, all.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

export function allowedCores(): number[] {
  try {
    const line = /^Cpus_allowed_list:\s*(.+)$/m.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    if (line) {
      // "0-3,8,10-11": ranges and single cores.
      const cores = line.split(',').flatMap((part) => {
        const [from, to = from] = part.trim().split('-').map(Number);
        return Array.from({ length: to - from + 1 }, (_, k) => from + k);
      });
      if (cores.length > 0 && cores.every((core) => Number.isInteger(core))) return cores;
    }
  } catch {
    // no /proc: every core the machine has
  }
  return cpus().map((_, i) => i);
}
