/**
 * Pushes of one task spaced at least `spacingMs` apart, the newest replacing any still waiting (as
 * progress writes are throttled). The first goes at once; a terminal one goes at once too,
 * right after the one still waiting, so it is always the last.
 */
export class PushThrottle<T> {
  #lastAt = Number.NEGATIVE_INFINITY;
  #pending?: T;
  #timer?: NodeJS.Timeout;
  #stopped = false;

  constructor(
    private readonly push: (item: T) => void,
    private readonly spacingMs: (item: T) => number,
    private readonly isLast: (item: T) => boolean,
    private readonly now: () => number = Date.now,
  ) {}

  offer(item: T): void {
    if (this.#stopped) return;
    const wait = this.#lastAt + this.spacingMs(item) - this.now();
    if (this.isLast(item)) {
      // The last progress written is still news (where the work got to): it goes first, then the end.
      clearTimeout(this.#timer);
      this.#timer = undefined;
      const pending = this.#pending;
      this.#pending = undefined;
      if (pending !== undefined) this.#push(pending);
      return this.#push(item);
    }
    if (wait <= 0 && !this.#timer) return this.#push(item);
    this.#pending = item;
    if (!this.#timer) {
      this.#timer = setTimeout(
        () => {
          this.#timer = undefined;
          const pending = this.#pending;
          this.#pending = undefined;
          if (pending !== undefined) this.#push(pending);
        },
        Math.max(0, wait),
      );
      this.#timer.unref();
    }
  }

  /** Nothing more is pushed, and nothing still waiting. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#pending = undefined;
  }

  #push(item: T): void {
    this.#lastAt = this.now();
    this.push(item);
  }
}
