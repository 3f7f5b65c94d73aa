// A wait's bound that a busy machine cannot break: `ms` of this process's own time, where the time
// its threads spent runnable but waiting for a CPU (Linux's run_delay, /proc/self/task/*/schedstat)
// does not count. On an idle machine that is wall time; beside a CPU hog the bound stretches by as
// much as the hog kept this process off the CPU, so a wait fails only when the awaited thing made
// no progress in `ms` of time this process could use. Without /proc it is plain wall time.
import { readdirSync, readFileSync } from 'node:fs';

/** Each thread's run_delay (ns) now, by thread id; empty where /proc is missing. */
function runDelays() {
  const delays = new Map();
  let tasks;
  try {
    tasks = readdirSync('/proc/self/task');
  } catch {
    return delays;
  }
  for (const tid of tasks) {
    try {
      delays.set(tid, Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[1]));
    } catch {
      // the thread ended meanwhile
    }
  }
  return delays;
}

/** Starts a budget of `ms`; `passed()` says whether it is spent, `elapsedMs()` how much is. */
export function loadAwareDeadline(ms) {
  const started = Date.now();
  const before = runDelays();
  const elapsedMs = () => {
    let lost = 0;
    // The thread kept waiting longest (a thread started meanwhile counts all of its wait).
    for (const [tid, delay] of runDelays()) lost = Math.max(lost, (delay - (before.get(tid) ?? 0)) / 1e6);
    return Math.max(0, Date.now() - started - lost);
  };
  return { passed: () => elapsedMs() > ms, elapsedMs };
}
