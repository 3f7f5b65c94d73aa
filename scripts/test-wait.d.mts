// Types of test-wait.mjs, for the TypeScript tests that import it.
export interface LoadAwareDeadline {
  /** True once `ms` of time this process could run in has passed. */
  passed(): boolean;
  /** Wall time since the start, less the time this process's most delayed thread waited for a CPU. */
  elapsedMs(): number;
}
export function loadAwareDeadline(ms: number): LoadAwareDeadline;
