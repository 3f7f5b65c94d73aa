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

  /** Queued tasks that start before this one: oldest first, ties by id, as claims take them. */
  async ahead(task: QueuedTask, now: number): Promise<number> {
    if (now - this.#readAt > this.maxAgeMs || now < this.#readAt) {
      this.#reading ??= this.read()
        .then((order) => {
          this.#order = order;
          this.#readAt = now;
        })
        .finally(() => (this.#reading = undefined));
      await this.#reading;
    }
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
}
