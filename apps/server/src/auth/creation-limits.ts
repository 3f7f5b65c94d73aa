import type { StoreQueries } from '@reflow/db';
import type { Principal } from './token-table.ts';

export interface CreationLimitOptions {
  /** Creations a principal may make in a burst. */
  burst: number;
  /** The bucket's refill rate. */
  perMinute: number;
  /** Tasks a principal may have working at once. */
  maxActive: number;
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
 * Limits on creating tasks, per principal: a token bucket (a rate, with bursts) and a cap on tasks
 * not yet finished, both kept in the database and read in the creating transaction, so they hold
 * for every node sharing the store and across restarts. Consulted after the arguments are valid
 * and before the task row is written. Operators (and the local operator of a server without
 * tokens) are trusted staff and are not limited.
 */
export class CreationLimits {
  constructor(readonly options: CreationLimitOptions) {}

  /** Whether `caller` is limited at all: an operator is not (a create then checks nothing). */
  appliesTo(caller: Principal): boolean {
    return caller.role !== 'operator';
  }

  /**
   * Throws CreationLimitError when `caller` may not create a task now; otherwise takes one token.
   * `tx` is the creating transaction: the count and the bucket are judged in it (on PostgreSQL under
   * the owner's transaction lock and the bucket's row lock), so no race gets past either limit, and
   * a create that rolls back gives its token back.
   */
  async admit(tx: StoreQueries, caller: Principal): Promise<void> {
    if (!this.appliesTo(caller)) return;
    const principal = caller.id;
    const { burst, perMinute, maxActive } = this.options;
    const active = await tx.principals.activeTaskCount(principal);
    if (active >= maxActive)
      throw new CreationLimitError(
        'RFL_TOO_MANY_TASKS',
        `${principal} already has ${active} unfinished tasks (the limit is ${maxActive}); wait for one to finish or cancel one`,
      );
    const taken = await tx.principals.takeToken(principal, burst, perMinute);
    if (!taken.ok)
      throw new CreationLimitError(
        'RFL_RATE_LIMITED',
        `${principal} is creating tasks too fast (at most ${perMinute} a minute, bursts of ${burst}); retry in ${Math.ceil(taken.retryAfterMs / 1000)} s`,
        taken.retryAfterMs,
      );
  }
}
