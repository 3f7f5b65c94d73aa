import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { END_OF_MESSAGES } from './worker-task.ts';

/** How long a finished run waits for its last progress messages before it stops listening. */
const DRAIN_LIMIT_MS = 2000;

export interface RunOptions {
  /** Absolute path or file URL of the worker module (its default export is the task function). */
  filename: string;
  signal?: AbortSignal;
  /** Messages the worker posts through its progress port. */
  onMessage?: (message: unknown) => void;
  /** Shared flag the worker reads between steps: cooperative cancel before the thread is terminated. */
  stopFlag?: Int32Array;
}

export interface WorkerPoolOptions {
  /** Heap limit of each worker thread: one that runs out of memory fails its run and is replaced. */
  maxOldGenerationSizeMb?: number;
}

/**
 * A pool of worker threads (piscina). Workers hold no database handle: they get a snapshot and
 * return a result; the main thread does every write.
 */
export class WorkerPool {
  readonly #piscina: Piscina | undefined;
  #inFlight = 0;
  #closed = false;

  constructor(
    readonly size: number,
    options: WorkerPoolOptions = {},
  ) {
    // Size 0 is an accept-only process: it serves and queues tasks, another process runs them.
    // A worker that crashes or exceeds its heap rejects the run it had; piscina starts a new thread.
    this.#piscina =
      size === 0
        ? undefined
        : new Piscina({
            minThreads: Math.min(1, size),
            maxThreads: size,
            idleTimeout: 60_000,
            concurrentTasksPerWorker: 1,
            ...(options.maxOldGenerationSizeMb
              ? { resourceLimits: { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb } }
              : {}),
          });
  }

  async run<T>(payload: unknown, options: RunOptions): Promise<T> {
    if (!this.#piscina) throw new Error('This process runs no workers (pool size 0)');
    const { port1, port2 } = new MessageChannel();
    // The result and the progress messages travel on different ports, so the result can overtake
    // the last messages; the worker ends its messages with a marker, which is awaited (bounded).
    let drained!: () => void;
    const allMessages = new Promise<void>((resolve) => (drained = resolve));
    port1.on('message', (message) => (message === END_OF_MESSAGES ? drained() : options.onMessage?.(message)));
    port1.once('close', () => drained());
    this.#inFlight++;
    try {
      const result = (await this.#piscina.run(
        { payload, port: port2, stopFlag: options.stopFlag },
        { filename: options.filename, signal: options.signal, transferList: [port2] },
      )) as T;
      await Promise.race([allMessages, new Promise((resolve) => setTimeout(resolve, DRAIN_LIMIT_MS).unref())]);
      return result;
    } finally {
      this.#inFlight--;
      port1.close();
    }
  }

  /** Runs in flight over pool size, 0..1 (tasks wait in the database, not here). */
  get utilisation(): number {
    return this.size === 0 ? 1 : Math.min(1, this.#inFlight / this.size);
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#piscina?.close({ force: true });
  }
}
