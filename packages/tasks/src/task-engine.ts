import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { hostname } from 'node:os';
import type { AnswerOutcome, Connection, Queries, TaskPollRow, TaskRow } from '@reflow/db';
import { heldFor, queriesFor } from '@reflow/db';
import { AttemptInterrupted, runAttempt } from './attempt-runner.ts';
import { deadClaimants } from './claimant.ts';
import type { Logger } from './logger.ts';
import { AttemptDurations } from './attempt-durations.ts';
import { heldPollIntervalFor, pollIntervalFor } from './poll-interval.ts';
import { QueuePositions } from './queue-positions.ts';
import { dedupeKey, newTaskId } from './task-id.ts';
import type { CreateTaskRequest, TaskHandler } from './types.ts';
import type { WorkerPool } from './worker-pool.ts';

export interface TaskEngineOptions {
  connection: Connection;
  pool: WorkerPool;
  logger: Logger;
  /** Attempts running at once; defaults to the pool size. */
  concurrency?: number;
  leaseMs?: number;
  sweepIntervalMs?: number;
  defaultTtlMs?: number;
  basePollIntervalMs?: number;
  maxAttempts?: number;
  now?: () => number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);
export const isTerminal = (status: string) => TERMINAL.has(status);

/**
 * The durable task engine: a task row is committed before anyone hears of its id; workers claim
 * rows with a lease; every write of an attempt is fenced by (id, attempt, claimant).
 */
export class TaskEngine {
  /** Who claims: random per engine, plus host and pid so a restart can tell its dead predecessor's claims. */
  readonly instanceId = `inst_${randomBytes(8).toString('hex')}@${hostname()}:${process.pid}`;
  readonly queries: Queries;
  readonly #handlers = new Map<string, TaskHandler<any>>();
  readonly #running = new Map<string, AbortController>();
  readonly #events = new EventEmitter();
  readonly #durations = new AttemptDurations();
  readonly #queue: QueuePositions;
  readonly #o: Required<Omit<TaskEngineOptions, 'concurrency'>> & { concurrency: number };
  #sweeper?: NodeJS.Timeout;
  #stopping = false;

  constructor(options: TaskEngineOptions) {
    this.#o = {
      concurrency: options.concurrency ?? options.pool.size,
      leaseMs: 30_000,
      sweepIntervalMs: 5_000,
      defaultTtlMs: 86_400_000,
      basePollIntervalMs: 1_000,
      maxAttempts: 3,
      now: Date.now,
      ...options,
    };
    this.queries = queriesFor(options.connection);
    this.#queue = new QueuePositions((now) => this.queries.tasks.queueOrder(now));
    this.#events.setMaxListeners(0);
  }

  register(handler: TaskHandler<any>): this {
    this.#handlers.set(handler.kind, handler);
    return this;
  }

  /**
   * Reclaims at once what a dead process on this host left `working` (no waiting for its leases to
   * lapse; claims of live processes or other hosts are left to their leases), then starts working
   * the queue and sweeping.
   */
  start(): void {
    const now = this.#o.now();
    const dead = deadClaimants(this.queries.tasks.claimants(), this.instanceId);
    const reclaimed = this.queries.tasks.releaseClaimsOf(
      dead,
      now,
      'The process running this attempt stopped; the task waits for the next worker',
    );
    if (reclaimed)
      this.#o.logger.warn({ reclaimed, claimants: dead }, 'reclaimed tasks left working by a previous process');
    this.#sweep();
    this.#sweeper = setInterval(() => this.#sweep(), this.#o.sweepIntervalMs);
    this.#sweeper.unref();
    this.kick();
  }

  /**
   * Creates a task, committed (synchronous=FULL) before this returns. An identical request from the
   * same owner while one is still running returns that one instead.
   */
  create(request: CreateTaskRequest): { task: TaskRow; created: boolean } {
    const handler = this.#handlers.get(request.kind);
    if (!handler) throw new Error(`No handler for task kind ${request.kind}`);
    if (this.#stopping) throw new Error('The server is shutting down and accepts no new tasks');
    const now = this.#o.now();
    const key = dedupeKey(request.kind, request.input);
    const ttlMs = request.ttlMs ?? this.#o.defaultTtlMs;
    const message = handler.describe?.(request.input) ?? `Queued ${request.kind}`;
    const scope = handler.scope?.(request.input);
    const result = this.queries.tasks.createOrFind(
      {
        id: newTaskId(),
        owner: request.owner,
        kind: request.kind,
        input: request.input,
        dedupeKey: key,
        status: 'working',
        statusMessage: message,
        createdAt: now,
        lastUpdatedAt: now,
        ttlMs,
        expiresAt: now + ttlMs,
        pollIntervalMs: this.pollIntervalMs(request.kind),
        maxAttempts: handler.maxAttempts ?? this.#o.maxAttempts,
        ...(scope ? { scopeKey: scope.key, scopeStart: scope.start, scopeEnd: scope.end } : {}),
      },
      { message, data: { by: request.owner } },
      now,
      request.admit,
    );
    if (result.created) queueMicrotask(() => this.kick());
    return result;
  }

  /** The task as stored, or undefined when unknown or past its TTL. */
  get(taskId: string): TaskRow | undefined {
    const row = this.queries.tasks.get(taskId);
    return row && row.expiresAt > this.#o.now() ? row : undefined;
  }

  /** What a poll shows of the task (no input), or undefined when unknown or past its TTL. */
  peek(taskId: string): TaskPollRow | undefined {
    const row = this.queries.tasks.poll(taskId);
    return row && row.expiresAt > this.#o.now() ? row : undefined;
  }

  /** Whether `owner` had a task `taskId` that has passed its TTL (swept or not); false for anyone else. */
  expired(taskId: string, owner: string): boolean {
    return this.queries.tasks.expiredOwner(taskId, this.#o.now()) === owner;
  }

  /** Requests cancellation: the row turns `cancelled` now; a running attempt is stopped and its work discarded. */
  cancel(taskId: string, by: string): boolean {
    const changed = this.queries.tasks.cancel(taskId, this.#o.now(), 'Cancelled', by);
    if (changed) {
      this.#running.get(taskId)?.abort(new AttemptInterrupted('cancelled'));
      this.#events.emit(`settled:${taskId}`);
    }
    return changed;
  }

  /**
   * Delivers answers to a task waiting in input_required (or, with `awaiting`, to one held for that
   * party). Keys it is not waiting on (unknown, from an earlier round, already answered) are
   * ignored; the last awaited answer puts it back in the queue.
   */
  answer(taskId: string, responses: Record<string, unknown>, by: string, awaiting?: string): AnswerOutcome {
    const outcome = this.queries.inputs.answer(taskId, this.#o.now(), responses, by, awaiting);
    this.#events.emit(`changed:${taskId}`);
    if (outcome.resumed) queueMicrotask(() => this.kick());
    return outcome;
  }

  /** The poll interval for a task created now (of `kind`, when known): behind the whole queue. */
  pollIntervalMs(kind?: string): number {
    const ahead = this.queries.tasks.queueDepth(this.#o.now());
    return this.#pollInterval({
      ahead,
      running: false,
      elapsedMs: 0,
      typicalMs: kind ? this.#durations.typical(kind) : undefined,
    });
  }

  /**
   * The poll interval for this task now: from its place in the queue, or how long its attempt has
   * run, against how long attempts of its kind take. A finished task shows the one it was created
   * with: nothing is left to wait for.
   */
  pollIntervalFor(row: TaskPollRow): number {
    if (isTerminal(row.status)) return row.pollIntervalMs;
    if (row.status === 'input_required') return this.#o.basePollIntervalMs;
    const now = this.#o.now();
    if (heldFor(row.claimedBy) !== undefined)
      return heldPollIntervalFor(this.#o.basePollIntervalMs, now - row.lastUpdatedAt);
    const running = row.claimedBy !== null && (row.leaseExpiresAt ?? 0) >= now;
    return this.#pollInterval({
      ahead: running ? 0 : this.#queue.ahead(row, now),
      running,
      elapsedMs: running && row.startedAt !== null ? now - row.startedAt : 0,
      typicalMs: this.#durations.typical(row.kind),
    });
  }

  #pollInterval(situation: {
    ahead: number;
    running: boolean;
    elapsedMs: number;
    typicalMs: number | undefined;
  }): number {
    return pollIntervalFor({ baseMs: this.#o.basePollIntervalMs, concurrency: this.#o.concurrency, ...situation });
  }

  /** Resolves with the terminal row; calls onProgress with each new statusMessage meanwhile. */
  waitFor(taskId: string, onProgress?: (message: string) => void, signal?: AbortSignal): Promise<TaskRow | undefined> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const row = this.get(taskId);
        if (!row || isTerminal(row.status)) {
          cleanup();
          resolve(row);
        }
      };
      const progress = (message: string) => onProgress?.(message);
      // A backstop poll: the task may be finished by another process sharing the database.
      const timer = setInterval(check, 1_000);
      const aborted = () => {
        cleanup();
        reject(signal?.reason ?? new Error('aborted'));
      };
      const shuttingDown = () => {
        cleanup();
        reject(new Error(`The server is shutting down; task ${taskId} stays queued and resumes when it restarts`));
      };
      const cleanup = () => {
        clearInterval(timer);
        this.#events.off(`settled:${taskId}`, check);
        this.#events.off(`progress:${taskId}`, progress);
        signal?.removeEventListener('abort', aborted);
        this.#events.off('stopping', shuttingDown);
      };
      this.#events.on('stopping', shuttingDown);
      this.#events.on(`settled:${taskId}`, check);
      this.#events.on(`progress:${taskId}`, progress);
      signal?.addEventListener('abort', aborted);
      check();
    });
  }

  /**
   * Calls `onChange` whenever this process writes something of the task a reader sees (claimed,
   * progress, parked, answered, settled, cancelled). Returns the unsubscribe. Another process
   * sharing the database is not heard here: a watcher that must see its writes also re-reads.
   */
  watch(taskId: string, onChange: () => void): () => void {
    const names = [`changed:${taskId}`, `progress:${taskId}`, `settled:${taskId}`];
    for (const name of names) this.#events.on(name, onChange);
    return () => {
      for (const name of names) this.#events.off(name, onChange);
    };
  }

  get runningCount(): number {
    return this.#running.size;
  }

  /** Claims queued tasks while there is room. Called on create, on finish and by the sweeper. */
  kick(): void {
    while (!this.#stopping && this.#running.size < this.#o.concurrency) {
      // Never its own running tasks: their leases may have lapsed while their attempts live on.
      const row = this.queries.tasks.claimNext(this.instanceId, this.#o.now(), this.#o.leaseMs, [
        ...this.#running.keys(),
      ]);
      if (!row) return;
      this.#launch(row);
    }
  }

  #launch(row: TaskRow): void {
    const handler = this.#handlers.get(row.kind);
    const abort = new AbortController();
    this.#running.set(row.id, abort);
    this.#events.emit(`changed:${row.id}`);
    const startedAt = this.#o.now();
    const run = handler
      ? runAttempt(row, handler, abort, {
          connection: this.#o.connection,
          queries: this.queries,
          pool: this.#o.pool,
          instanceId: this.instanceId,
          leaseMs: this.#o.leaseMs,
          heartbeatMs: Math.max(50, Math.floor(this.#o.leaseMs / 3)),
          logger: this.#o.logger,
          now: this.#o.now,
          onProgress: (id, message) => this.#events.emit(`progress:${id}`, message),
        })
      : Promise.resolve(
          this.queries.tasks.failExhausted(row.id, this.#o.now(), {
            code: -32603,
            message: `No handler for task kind ${row.kind}`,
          }) && 'finished',
        );
    run
      .then((outcome) => {
        if (outcome === 'finished') this.#durations.record(row.kind, this.#o.now() - startedAt);
      })
      .catch((error) => this.#o.logger.error({ err: error, taskId: row.id }, 'task attempt crashed'))
      .finally(() => {
        if (this.#running.get(row.id) === abort) this.#running.delete(row.id);
        this.#events.emit(`settled:${row.id}`);
        if (!this.#stopping) setImmediate(() => this.kick());
      });
  }

  #sweep(): void {
    const now = this.#o.now();
    try {
      for (const row of this.queries.tasks.listExhausted(now, [...this.#running.keys()])) {
        const error = {
          code: -32603,
          message: `Gave up after ${row.attempt} attempt(s): each time, the process running it stopped (crashed, was killed, or lost its lease) before it finished`,
        };
        if (this.queries.tasks.failExhausted(row.id, now, error)) this.#events.emit(`settled:${row.id}`);
      }
      const swept = this.queries.tasks.sweepExpired(now);
      if (swept) this.#o.logger.info({ swept }, 'expired tasks deleted');
      this.kick();
    } catch (error) {
      this.#o.logger.error({ err: error }, 'task sweep failed');
    }
  }

  /** Stops claiming, gives running attempts `graceMs` to finish, then releases the rest for the next start. */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#sweeper);
    const deadline = Date.now() + graceMs;
    while (this.#running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    for (const abort of this.#running.values()) abort.abort(new AttemptInterrupted('shutting down'));
    while (this.#running.size > 0) await new Promise((r) => setTimeout(r, 10));
    // Synchronous callers waiting on a task that now stays queued hear so instead of hanging.
    this.#events.emit('stopping');
  }
}
