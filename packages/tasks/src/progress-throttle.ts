/**
 * Progress written at most once per `intervalMs`: each write is a committed (fsynced) transaction
 * on the main thread, and a solve of many small components reports faster than anyone reads. The
 * first message is written at once; later ones within the interval wait, the newest replacing
 * the rest, and are written when the interval ends. When the work is done, `flush` writes the one
 * still waiting (the history keeps where it got to); when it is abandoned, `stop` drops it.
 */
export class ProgressThrottle {
  #lastWriteAt = Number.NEGATIVE_INFINITY;
  #pending?: { message: string; data?: unknown };
  #timer?: NodeJS.Timeout;

  constructor(
    private readonly write: (message: string, data?: unknown) => void,
    private readonly intervalMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  report(message: string, data?: unknown): void {
    const wait = this.#lastWriteAt + this.intervalMs - this.now();
    if (wait <= 0 && !this.#timer) return this.#write(message, data);
    this.#pending = { message, data };
    if (!this.#timer) {
      this.#timer = setTimeout(() => this.#flush(), Math.max(0, wait));
      this.#timer.unref();
    }
  }

  /** Writes the message still waiting, if any, now. */
  flush(): void {
    clearTimeout(this.#timer);
    this.#flush();
  }

  /** Stops: nothing pending is written after this. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#pending = undefined;
  }

  #flush(): void {
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = undefined;
    if (pending) this.#write(pending.message, pending.data);
  }

  #write(message: string, data?: unknown): void {
    this.#lastWriteAt = this.now();
    this.write(message, data);
  }
}
