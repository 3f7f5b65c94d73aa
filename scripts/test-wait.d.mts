// Types of test-wait.mjs, for the TypeScript tests that import it.
export interface LoadAwareDeadline {
  /** True once `ms` of time this process could run in has passed. */
  passed(): boolean;
  /** Wall time since the start, less the time this process's most delayed thread waited for a CPU. */
  elapsedMs(): number;
}
/** `pids`: the processes whose waits for a CPU do not count (default: this one); `mainOnly`: only their main threads'. */
export function loadAwareDeadline(ms: number, pids?: (number | 'self')[], mainOnly?: boolean): LoadAwareDeadline;
