import type { StoreQueries } from '@reflow/db';
import type { Principal } from './token-table.ts';

export interface CreationLimitOptions {
  /** Creations a principal may make in a burst. */
  burst: number;
  /** The bucket's refill rate. */
  perMinute: number;
  /** Tasks a principal may have working at once. */
  maxActive: number;
  now?: () => number;
}

/** A creation refused by a limit; the message says which and when to try again. */
export class CreationLimitError extends Error {
  constructor(
    readonly code: 'RFL_RATE_LIMITED' | 'RFL_TOO_MANY_TASKS',
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'CreationLimitError';
  }
}

/**
 * Limits on creating tasks, per principal: a token bucket in memory (a rate, with bursts), and a
 * cap on tasks not yet finished, counted in the database so it holds across processes and restarts.
 * Consulted after the arguments are valid and before the task row is written. Operators (and the
 * local operator of a server without tokens) are trusted staff and are not limited.
 */
export class CreationLimits {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #o: Required<CreationLimitOptions>;

  constructor(options: CreationLimitOptions) {
    this.#o = { now: Date.now, ...options };
  }

  /**
   * Throws CreationLimitError when `caller` may not create a task now; otherwise takes one token.
   * `tx` is the creating transaction: the unfinished tasks are counted in it, so no race gets past the cap.
   */
  async admit(tx: StoreQueries, caller: Principal): Promise<void> {
    if (caller.role === 'operator') return;
    const principal = caller.id;
    const active = await tx.principals.activeTaskCount(principal);
    const now = this.#o.now();
    if (active >= this.#o.maxActive)
      throw new CreationLimitError(
        'RFL_TOO_MANY_TASKS',
        `${principal} already has ${active} unfinished tasks (the limit is ${this.#o.maxActive}); wait for one to finish or cancel one`,
      );
    const refillPerMs = this.#o.perMinute / 60_000;
    const bucket = this.#buckets.get(principal) ?? { tokens: this.#o.burst, at: now };
    bucket.tokens = Math.min(this.#o.burst, bucket.tokens + (now - bucket.at) * refillPerMs);
    bucket.at = now;
    this.#buckets.set(principal, bucket);
    if (bucket.tokens < 1) {
      const retryAfterMs = Math.ceil((1 - bucket.tokens) / refillPerMs);
      throw new CreationLimitError(
        'RFL_RATE_LIMITED',
        `${principal} is creating tasks too fast (at most ${this.#o.perMinute} a minute, bursts of ${this.#o.burst}); retry in ${Math.ceil(retryAfterMs / 1000)} s`,
        retryAfterMs,
      );
    }
    bucket.tokens -= 1;
  }
}
