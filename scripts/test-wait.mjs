// A wait's bound that a busy machine cannot break: `ms` of this process's own time, where the time
// its threads spent runnable but waiting for a CPU (Linux's run_delay, /proc/self/task/*/schedstat)
// does not count. On an idle machine that is wall time; beside a CPU hog the bound stretches by as
// much as the hog kept this process off the CPU, so a wait fails only when the awaited thing made
// no progress in `ms` of time this process could use. Without /proc it is plain wall time.
import { readdirSync, readFileSync } from 'node:fs';

/** Each thread's run_delay (ns) now, by thread id, of these processes; empty where /proc is missing. */
function runDelays(pids, mainOnly) {
  const delays = new Map();
  for (const pid of pids) {
    let tasks;
    try {
      tasks = mainOnly ? [String(pid === 'self' ? process.pid : pid)] : readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tasks) {
      try {
        delays.set(tid, Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[1]));
      } catch {
        // the thread ended meanwhile
      }
    }
  }
  return delays;
}

/**
 * Starts a budget of `ms`; `passed()` says whether it is spent, `elapsedMs()` how much is. `pids`:
 * the processes whose waits for a CPU do not count (this one, and for instance a server it asks);
 * `mainOnly`: only their main threads' (a request's own thread), not those of workers.
 */
export function loadAwareDeadline(ms, pids = ['self'], mainOnly = false) {
  const started = Date.now();
  const before = runDelays(pids, mainOnly);
  const elapsedMs = () => {
    let lost = 0;
    // The thread kept waiting longest (a thread started meanwhile counts all of its wait).
    for (const [tid, delay] of runDelays(pids, mainOnly)) lost = Math.max(lost, (delay - (before.get(tid) ?? 0)) / 1e6);
    return Math.max(0, Date.now() - started - lost);
  };
  return { passed: () => elapsedMs() > ms, elapsedMs };
}
