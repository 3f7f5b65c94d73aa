// What one soak run is asked to do, with the defaults the CLI and the smoke test share.

export interface SoakOptions {
  /** How long new traffic is started, in minutes (fractions allowed). */
  minutes: number;
  /** Concurrent traffic clients (reflow callers); the operator and the booking editor come on top. */
  clients: number;
  seed: number;
  /** Overrides the poll interval the server hands out (tasks/get, reflow_status). */
  pollMs?: number;
  /** Task TTL the server is started with; default a third of the run (10 s to 120 s) so the sweeper works during it. */
  ttlMs?: number;
  /** The server's base poll interval (POLL_INTERVAL_MS). */
  serverPollMs: number;
  /** Sampling period of RSS, WAL and table sizes. */
  sampleEveryMs: number;
  /** Mean pause between the booking editor's edits. */
  editEveryMs: number;
  /** Mean pause between the operator's REST cancellations. */
  operatorEveryMs: number;
  /**
   * How far the last third's mean RSS may exceed the middle third's (default RSS_TOLERANCE, 15 %).
   * A run of seconds has thirds of a few seconds, where one step of the allocator or the JIT is a
   * larger share than in the 10-minute soak.
   */
  rssTolerance?: number;
  /** Progress lines on stderr while running. */
  onProgress?: (line: string) => void;
}

export const DEFAULT_SOAK_OPTIONS: SoakOptions = {
  minutes: 10,
  clients: 20,
  seed: 9,
  serverPollMs: 250,
  sampleEveryMs: 2_000,
  editEveryMs: 400,
  operatorEveryMs: 5_000,
};

/** The TTL used when none is given: the sweeper must delete tasks several times within the run. */
export function defaultTtlMs(minutes: number): number {
  return Math.round(Math.min(120_000, Math.max(10_000, (minutes * 60_000) / 3)));
}
