export interface QueuedTask {
  createdAt: number;
  id: string;
}

/**
 * Where a queued task stands, from a snapshot of the queue at most `maxAgeMs` old: the poll
 * interval needs a place in the queue on every poll of a queued task, and one read of the
 * queue per quarter second serves any number of pollers (a count per poll grows with the queue).
 * Pollers that ask while a read is under way wait for that one read rather than starting their own.
 */
export class QueuePositions {
  #order: QueuedTask[] = [];
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<void> | undefined;

  constructor(
    private readonly read: () => Promise<QueuedTask[]>,
    private readonly maxAgeMs = 250,
  ) {}

  /** Tasks this process queued (+1) or claimed (−1) since the snapshot was read. */
  #since = 0;

  /** Queued tasks that start before this one: oldest first, ties by id, as claims take them. */
  async ahead(task: QueuedTask, now: number): Promise<number> {
    await this.#fresh(now);
    const at = this.#position(task);
    // A task queued since the snapshot was read is not in it yet: read again (once for all who ask).
    if (this.#order[at]?.id === task.id || this.#since === 0) return at;
    this.#readAt = Number.NEGATIVE_INFINITY;
    await this.#fresh(now);
    return this.#position(task);
  }

  #position(task: QueuedTask): number {
    let low = 0;
    let high = this.#order.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const other = this.#order[mid];
      if (other.createdAt < task.createdAt || (other.createdAt === task.createdAt && other.id < task.id)) low = mid + 1;
      else high = mid;
    }
    return low;
  }

  /**
   * How many tasks are queued now: the snapshot, corrected by what this process queued and claimed
   * since it was read (exact on one node; other nodes' changes show at the next read). A new task's
   * poll interval needs it on every create, where a count per create grew with the queue.
   */
  async depth(now: number): Promise<number> {
    await this.#fresh(now);
    return Math.max(0, this.#order.length + this.#since);
  }

  /** This process queued a task (+1) or took one from the queue (−1). */
  noteQueued(change: 1 | -1): void {
    this.#since += change;
  }

  async #fresh(now: number): Promise<void> {
    if (now - this.#readAt > this.maxAgeMs || now < this.#readAt) {
      this.#reading ??= this.read()
        .then((order) => {
          this.#order = order;
          this.#readAt = now;
          this.#since = 0;
        })
        .finally(() => (this.#reading = undefined));
      await this.#reading;
    }
  }
}
