// What one principal holds open on this node at once: requests that wait for a task to end
// (2025-11-25 tasks/result, a synchronous tool call), subscriptions/listen streams and 2025-11-25
// sessions. Each costs memory and a reader for as long as it lasts, and a rate limit counts only
// how often requests start, so without a cap one principal could hold the node-wide caps (streams,
// sessions) and its memory for everyone. The server passes no HeldRequests for a principal it does
// not limit (an operator).

/** A principal over its cap: the request is refused (or served without what it would hold). */
export class HeldRequestsLimitError extends Error {
  readonly code = 'RFL_TOO_MANY_HELD';
  constructor(readonly limit: number) {
    super(
      `This principal already holds ${limit} requests open on this server (waits, listens, sessions); end one, or poll with tasks/get`,
    );
    this.name = 'HeldRequestsLimitError';
  }

  /** What a JSON-RPC error carries of it. */
  get data(): { code: string; limit: number } {
    return { code: this.code, limit: this.limit };
  }
}

/** What a principal may hold open unless told otherwise. */
export const DEFAULT_HELD_PER_PRINCIPAL = 50;

export class HeldRequests {
  readonly #held = new Map<string, number>();

  constructor(readonly perPrincipal: number) {
    if (!Number.isInteger(perPrincipal) || perPrincipal < 1)
      throw new RangeError(`perPrincipal must be a whole number ≥ 1 (got ${perPrincipal})`);
  }

  /** How many `principal` holds now. */
  count(principal: string): number {
    return this.#held.get(principal) ?? 0;
  }

  /**
   * Takes one for `principal`: a function that gives it back (once, however often it is called),
   * or undefined when `principal` already holds `perPrincipal`.
   */
  hold(principal: string): (() => void) | undefined {
    const held = this.count(principal);
    if (held >= this.perPrincipal) return undefined;
    this.#held.set(principal, held + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const left = this.count(principal) - 1;
      if (left > 0) this.#held.set(principal, left);
      else this.#held.delete(principal);
    };
  }
}

/**
 * One of `principal`'s held requests from `held` (nothing to give back when there is no `held`: a
 * principal not limited), or the refusal saying it holds too many.
 */
export function holdFor(held: HeldRequests | undefined, principal: string): (() => void) | HeldRequestsLimitError {
  if (!held) return () => undefined;
  return held.hold(principal) ?? new HeldRequestsLimitError(held.perPrincipal);
}
