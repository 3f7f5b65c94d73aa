/**
 * How long attempts of each kind take, as a moving average of the last ones that finished: the
 * estimate behind the poll interval. In memory, per process: a restart starts from the base.
 */
export class AttemptDurations {
  readonly #typical = new Map<string, number>();

  /** Weight of the newest duration: about the last five attempts count. */
  static readonly WEIGHT = 0.3;

  record(kind: string, ms: number): void {
    const previous = this.#typical.get(kind);
    this.#typical.set(kind, previous === undefined ? ms : previous + AttemptDurations.WEIGHT * (ms - previous));
  }

  typical(kind: string): number | undefined {
    return this.#typical.get(kind);
  }
}
