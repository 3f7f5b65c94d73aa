// Group commit for task creation, after PostgreSQL's WAL flush (XLogFlush): a backend that flushes
// writes every commit record inserted before it, so commits that queued up meanwhile become durable
// in that one flush. Here: creates that arrive while a batch is being committed wait, and the next
// batch commits all of them in one transaction (one fsync on SQLite, one COMMIT on PostgreSQL).
// Each create runs in its own savepoint, so one refused create (a limit, a bad row) rolls back alone.

import type { NewTask, TaskStore } from './store.ts';

type CreateArgs = Parameters<TaskStore['createOrFind']>;
/** A create waiting for its batch: the row to write, its event, and the limits to check first. */
export interface PendingCreate {
  task: NewTask;
  event: CreateArgs[1];
  admit?: CreateArgs[2];
}
export type CreateOutcome = Awaited<ReturnType<TaskStore['createOrFind']>>;

/** What one create in a batch came to: its value, or the error that refused it (its savepoint rolled back). */
export type BatchOutcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

interface Waiting<T, R> {
  item: T;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/** Bounds one transaction's size (and how long it holds SQLite's write lock). */
const MAX_BATCH = 256;

export class GroupCommit<T, R> {
  #queue: Waiting<T, R>[] = [];
  /** Batches scheduled or committing now (never more than `inFlight`). */
  #running = 0;
  #batches = 0;
  #committed = 0;

  /**
   * `commitBatch` commits the items in one transaction and returns one outcome per item, in order;
   * when it throws (the commit itself failed), every item of the batch fails with that error.
   * `inFlight` batches may commit at once: 1 on SQLite (one connection, one writer); more on
   * PostgreSQL, where a batch waiting for its commit's flush holds only its own connection, so the
   * next batch can run its statements meanwhile and share that flush (the server's own group commit).
   */
  constructor(
    private readonly commitBatch: (items: T[]) => Promise<BatchOutcome<R>[]>,
    private readonly inFlight = 1,
  ) {}

  /** Resolves once the transaction holding `item` has committed (or rejects with why it was refused). */
  submit(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.#queue.push({ item, resolve, reject });
      if (this.#running >= this.inFlight) return;
      this.#running++;
      // Every create that reaches the store in this turn of the event loop joins the batch: on
      // SQLite a commit's fsync holds the thread, so requests that arrived meanwhile all reach the
      // store in the next turn, together.
      setImmediate(() => void this.#drain());
    });
  }

  /** Batches committed, creates in them (for the bench and tests: the mean batch size), and the lanes. */
  get stats(): { batches: number; creates: number; lanes: number } {
    return { batches: this.#batches, creates: this.#committed, lanes: this.inFlight };
  }

  /** One lane: commits batches from the queue until it is empty. */
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH);
        let outcomes: BatchOutcome<R>[];
        try {
          outcomes = await this.commitBatch(batch.map((w) => w.item));
        } catch (error) {
          for (const waiting of batch) waiting.reject(error);
          continue;
        }
        this.#batches++;
        this.#committed += batch.length;
        batch.forEach((waiting, i) => {
          const outcome = outcomes[i];
          if (outcome.ok) waiting.resolve(outcome.value);
          else waiting.reject(outcome.error);
        });
      }
    } finally {
      this.#running--;
    }
  }
}
