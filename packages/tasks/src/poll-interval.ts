/**
 * How long a client should wait before asking again: a quarter of the time its answer is
 * expected to take, never less than the server's base nor more than its ceiling. Asking faster
 * cannot make the answer come sooner; a quarter keeps the delay in seeing it small against the
 * wait itself (at most a quarter of it, an eighth on average).
 */
export const POLLS_PER_EXPECTED_WAIT = 4;
export const MAX_POLL_INTERVAL_MS = 30_000;

export interface PollSituation {
  baseMs: number;
  /** Attempts that run at once. */
  concurrency: number;
  /** Queued tasks that will start before this one (for a running task, 0). */
  ahead: number;
  running: boolean;
  /** How long the running attempt has been going. */
  elapsedMs: number;
  /** How long an attempt of this kind usually takes; unknown before the first has finished. */
  typicalMs?: number;
  maxMs?: number;
}

export function pollIntervalFor(s: PollSituation): number {
  const maxMs = s.maxMs ?? MAX_POLL_INTERVAL_MS;
  const rounds = Math.floor(s.ahead / Math.max(1, s.concurrency));
  // Without an estimate yet: one base interval per round of the queue ahead, as before any finished.
  if (s.typicalMs === undefined) return Math.min(maxMs, s.running ? s.baseMs : s.baseMs * (1 + rounds));
  const expectedMs = s.running ? s.typicalMs - s.elapsedMs : (s.ahead / Math.max(1, s.concurrency) + 1) * s.typicalMs;
  return Math.round(Math.min(maxMs, Math.max(s.baseMs, expectedMs / POLLS_PER_EXPECTED_WAIT)));
}

/**
 * A task held for a person's decision: nothing it does changes its answer until they act, and
 * people take minutes, so the interval grows with the wait (a quarter of it) up to the ceiling.
 */
export function heldPollIntervalFor(baseMs: number, waitedMs: number, maxMs = MAX_POLL_INTERVAL_MS): number {
  return Math.round(Math.min(maxMs, Math.max(baseMs, baseMs + waitedMs / POLLS_PER_EXPECTED_WAIT)));
}
