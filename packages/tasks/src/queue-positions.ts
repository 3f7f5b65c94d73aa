export interface QueuedTask {
  createdAt: number;
  id: string;
}

/**
 * A read of the queue, at most `maxAgeMs` old, shared by everyone who asks meanwhile (those who ask
 * while it is under way wait for that one read), with the changes this process made since it was read.
 */
class SharedRead<T> {
  value: T | undefined;
  /** Tasks this process queued (+1) or claimed (−1) since the value was read. */
  since = 0;
  #readAt = Number.NEGATIVE_INFINITY;
  #reading: Promise<void> | undefined;

  constructor(
    private readonly read: () => Promise<T>,
    private readonly maxAgeMs: number,
  ) {}

  async fresh(now: number): Promise<T> {
    if (now - this.#readAt > this.maxAgeMs || now < this.#readAt) {
      this.#reading ??= this.read()
        .then((value) => {
          this.value = value;
          this.#readAt = now;
          this.since = 0;
        })
        .finally(() => (this.#reading = undefined));
      await this.#reading;
    }
    return this.value!;
  }

  /** The next ask reads again. */
  forget(): void {
    this.#readAt = Number.NEGATIVE_INFINITY;
  }
}

/**
 * Where a queued task stands, and how many are queued, each from a read at most `maxAgeMs` old: the
 * poll interval needs a place in the queue on every poll of a queued task, and one read of the
 * queue per quarter second serves any number of pollers (a count per poll grows with the queue).
 * The depth a create needs is a count of its own: on PostgreSQL, reading the whole queue's order to
 * count it cost a node a few percent of its creates once thousands were queued.
 */
export class QueuePositions {
  readonly #order: SharedRead<QueuedTask[]>;
  readonly #depth: SharedRead<number>;

  constructor(readOrder: () => Promise<QueuedTask[]>, readDepth: () => Promise<number>, maxAgeMs = 250) {
    this.#order = new SharedRead(readOrder, maxAgeMs);
    this.#depth = new SharedRead(readDepth, maxAgeMs);
  }

  /** Queued tasks that start before this one: oldest first, ties by id, as claims take them. */
  async ahead(task: QueuedTask, now: number): Promise<number> {
    const order = await this.#order.fresh(now);
    const at = position(order, task);
    // A task queued since the snapshot was read is not in it yet: read again (once for all who ask).
    if (order[at]?.id === task.id || this.#order.since === 0) return at;
    this.#order.forget();
    return position(await this.#order.fresh(now), task);
  }

  /**
   * How many tasks are queued now: the count, corrected by what this process queued and claimed
   * since it was read (exact on one node; other nodes' changes show at the next read).
   */
  async depth(now: number): Promise<number> {
    const counted = await this.#depth.fresh(now);
    return Math.max(0, counted + this.#depth.since);
  }

  /** This process queued a task (+1) or took one from the queue (−1). */
  noteQueued(change: 1 | -1): void {
    this.#order.since += change;
    this.#depth.since += change;
  }
}

/** Where `task` goes in `order` (oldest first, ties by id): how many are before it. */
function position(order: QueuedTask[], task: QueuedTask): number {
  let low = 0;
  let high = order.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    const other = order[mid];
    if (other.createdAt < task.createdAt || (other.createdAt === task.createdAt && other.id < task.id)) low = mid + 1;
    else high = mid;
  }
  return low;
}
