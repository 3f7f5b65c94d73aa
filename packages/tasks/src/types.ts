import type { StoreQueries, TaskError, TaskRow } from '@reflow/db';
import type { WorkerPool } from './worker-pool.ts';

export type { TaskError, TaskRow };

/** What one attempt of a task may do while it runs. */
export interface RunContext {
  taskId: string;
  attempt: number;
  owner: string;
  /** Aborted when the task is cancelled, loses its lease, or the engine shuts down. */
  signal: AbortSignal;
  /** Records a sentence for statusMessage and the task's history; ignored once the attempt lost its fence. */
  progress(message: string, data?: unknown): void;
  pool: WorkerPool;
  /** Set when the task parked in input_required and every question was answered: what it kept, and the answers by name. */
  resumed?: ResumedInput;
}

export interface ResumedInput {
  state: unknown;
  responses: Record<string, unknown>;
}

export type TaskOutcome =
  | {
      status: 'completed';
      /** JSON-serialisable; stored as text and served as it is. */
      result: unknown;
      message: string;
    }
  | {
      status: 'completed';
      /**
       * Writes that must commit together with the terminal state, or not at all. It runs inside that
       * transaction, through `tx` only (never the outer store), and returns the result and message to record.
       */
      commit: (tx: StoreQueries) => Promise<{ result: unknown; message: string }>;
    }
  | { status: 'failed'; error: TaskError; message: string }
  | {
      /**
       * Park the task until a person answers: `requests` by the handler's own names (the protocol
       * layer shows them under unique keys); `state` is kept durably and handed back in `resumed`.
       * The lease is released meanwhile, so a wait costs no worker and survives a restart.
       */
      status: 'input_required';
      requests: Record<string, unknown>;
      state?: unknown;
      message: string;
      /**
       * Who answers, when not the requester (e.g. `operator`): the task then stays `working` to its
       * requester (it has nothing to answer) while it holds its scope, and only `answer(…, awaiting)` resumes it.
       */
      awaiting?: string;
    };

export interface TaskHandler<Input = unknown> {
  kind: string;
  /** Attempts before the task fails for good (default from the engine's config). */
  maxAttempts?: number;
  /** The first statusMessage, written with the row. */
  describe?(input: Input): string;
  /**
   * What the task works on exclusively: tasks of the same key whose [start, end) ranges overlap never
   * run at once; a later one waits in the queue. Undefined: it may run alongside anything.
   */
  scope?(input: Input): Promise<TaskScope | undefined>;
  run(input: Input, ctx: RunContext): Promise<TaskOutcome>;
}

/** Thrown by a handler for a failure that retrying cannot fix. */
export class PermanentTaskError extends Error {
  constructor(
    message: string,
    readonly code = -32603,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'PermanentTaskError';
  }
}

export interface TaskScope {
  key: string;
  start: number;
  end: number;
}

export interface CreateTaskRequest {
  owner: string;
  kind: string;
  input: unknown;
  /**
   * What makes two requests the same work, when not the whole input (the dedupe key is made from it).
   * Creates of the same work take turns, across nodes too: two forms of one piece of work that must
   * not both run (a revert waiting for approval, and one that does not) share it.
   */
  sameWorkAs?: unknown;
  ttlMs?: number;
  /**
   * Called only when a new task would be written (not for a duplicate of running work), inside the
   * creating transaction, through `tx` only; throw to refuse. Where per-principal limits go.
   */
  admit?(tx: StoreQueries): Promise<void>;
}
