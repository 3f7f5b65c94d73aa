/**
 * The poll interval the server hands out: its base when the pool has room, growing with the queue
 * so clients ask less when asking more could not make the answer come sooner.
 */
export function pollIntervalFor(baseMs: number, queueDepth: number, concurrency: number, maxMs = 30_000): number {
  const rounds = Math.floor(queueDepth / Math.max(1, concurrency));
  return Math.min(maxMs, Math.round(baseMs * (1 + rounds)));
}
