import { randomBytes } from 'node:crypto';
import { EventEmitter, setMaxListeners } from 'node:events';
import { hostname } from 'node:os';
import {
  isTerminalStatus,
  type AnswerOutcome,
  type Store,
  type StoreSignal,
  type TaskPollRow,
  type TaskRow,
} from '@reflow/db';
import { AttemptInterrupted, runAttempt } from './attempt-runner.ts';
import { deadClaimants } from './claimant.ts';
import { EngineStoppingError } from './engine-stopping-error.ts';
import type { Logger } from './logger.ts';
import { AttemptDurations } from './attempt-durations.ts';
import { heldPollIntervalFor, pollIntervalFor } from './poll-interval.ts';
import { QueuePositions } from './queue-positions.ts';
import { OUTAGE_WAIT_MS } from './store-outage.ts';
import { dedupeKey, newTaskId } from './task-id.ts';
import type { CreateTaskRequest, TaskHandler } from './types.ts';
import type { WorkerPool } from './worker-pool.ts';

export interface TaskEngineOptions {
  store: Store;
  pool: WorkerPool;
  logger: Logger;
  /** Attempts running at once; defaults to the pool size. */
  concurrency?: number;
  /** A claim's lease; this node's heartbeat runs every third of it, and a node silent for a lease is dead. */
  leaseMs?: number;
  sweepIntervalMs?: number;
  defaultTtlMs?: number;
  basePollIntervalMs?: number;
  maxAttempts?: number;
  /**
   * For hints only (poll intervals, attempt durations); defaults to the store's clock. Every lease,
   * TTL and fence is judged by the store's own clock.
   */
  now?: () => number;
  /** How long an attempt waits for a store that is away before giving up as a crash would (OUTAGE_WAIT_MS). */
  outageWaitMs?: number;
}

/** Whether a status is terminal: the one set, declared with the lifecycle (@reflow/db). */
export const isTerminal = isTerminalStatus;

/**
 * The durable task engine: a task row is committed before anyone hears of its id; workers claim
 * rows with a lease; every write of an attempt is fenced by (id, attempt, claimant). Each engine is
 * a node of the store: registered with a heartbeat, so a survivor takes over a dead node's tasks.
 */
export class TaskEngine {
  /**
   * Who claims, and this node's id: random per engine, plus host and pid so a restart on the same
   * host can tell its dead predecessor's claims.
   */
  readonly instanceId = `inst_${randomBytes(8).toString('hex')}@${hostname()}:${process.pid}`;
  readonly store: Store;
  readonly #handlers = new Map<string, TaskHandler<any>>();
  readonly #running = new Map<string, AbortController>();
  /** Asks every running attempt to renew its lease now ('check'): see #beatOnce. */
  readonly #leaseChecks = new EventEmitter().setMaxListeners(0);
  readonly #events = new EventEmitter();
  readonly #durations = new AttemptDurations();
  readonly #queue: QueuePositions;
  readonly #o: Required<Omit<TaskEngineOptions, 'concurrency'>> & { concurrency: number };
  #sweeper?: NodeJS.Timeout;
  #heartbeat?: NodeJS.Timeout;
  #unsubscribe?: () => void;
  #stopping = false;
  /** Aborted by stop() once no attempt runs here any more (see `stopped`). */
  readonly #stopped = new AbortController();
  /**
   * Set by start(). Until then a create or an answer claims nothing on its own: the engine has no node
   * row or heartbeat yet, and a dedupe or limit check must not race its own worker. An explicit
   * kick() still claims (tests use it to claim without start's same-host reclaim).
   */
  #started = false;
  /** The claim loop under way, if any; a kick meanwhile (counted) asks it to go round once more. */
  #kicking: Promise<void> | undefined;
  #kicks = 0;
  /** The heartbeat under way, if any: one still waiting (a slow database, a held lock) is not stacked upon. */
  #beating: Promise<boolean> | undefined;
  /**
   * Since when (performance.now()) every heartbeat of this node went through promptly: from the start
   * (-Infinity), or from the first prompt one after a heartbeat failed, was slow, or found this node
   * declared dead (undefined until then). Only a node that has watched the store for a whole lease
   * since judges others: one back from an outage has seen nobody's heartbeats meanwhile.
   */
  #healthySince: number | undefined = -Infinity;

  constructor(options: TaskEngineOptions) {
    this.#o = {
      concurrency: options.concurrency ?? options.pool.size,
      leaseMs: 30_000,
      sweepIntervalMs: 5_000,
      defaultTtlMs: 86_400_000,
      basePollIntervalMs: 1_000,
      maxAttempts: 3,
      outageWaitMs: OUTAGE_WAIT_MS,
      ...options,
      now: options.now ?? (() => options.store.clock()),
    };
    this.store = options.store;
    this.#queue = new QueuePositions(
      () => this.store.tasks.queueOrder(),
      () => this.store.tasks.queueDepth(),
    );
    this.#events.setMaxListeners(0);
    // Every wait here listens for the stop: no limit, as for the events above.
    setMaxListeners(0, this.#stopped.signal);
  }

  register(handler: TaskHandler<any>): this {
    this.#handlers.set(handler.kind, handler);
    return this;
  }

  /**
   * Registers this node, reclaims at once what a dead process on this host left `working` (SQLite:
   * no waiting for its leases to lapse; claims of live processes or other hosts are left to their
   * leases and heartbeats), then starts working the queue, heartbeating and sweeping.
   */
  async start(): Promise<void> {
    await this.store.nodes.register({
      id: this.instanceId,
      host: hostname(),
      pid: process.pid,
      workers: this.#o.concurrency,
    });
    this.#started = true;
    if (this.store.dialect === 'sqlite') {
      const dead = deadClaimants(await this.store.tasks.claimants(), this.instanceId);
      const reclaimed = await this.store.tasks.releaseClaimsOf(
        dead,
        'The process running this attempt stopped; the task waits for the next worker',
      );
      if (reclaimed)
        this.#o.logger.warn({ reclaimed, claimants: dead }, 'reclaimed tasks left working by a previous process');
    }
    this.#unsubscribe = this.store.onSignal((signal, taskId) => this.#heard(signal, taskId));
    // A task another node creates once start() has resolved is heard at once, not at the next sweep.
    await this.store.listening();
    this.#heartbeat = setInterval(() => void this.#beat(), Math.max(50, Math.floor(this.#o.leaseMs / 3)));
    this.#heartbeat.unref();
    await this.#sweep();
    this.#sweeper = setInterval(() => void this.#sweep(), this.#o.sweepIntervalMs);
    this.#sweeper.unref();
  }

  /** A change made by this or another node: work to claim now, or an attempt of ours to stop. */
  #heard(signal: StoreSignal, taskId: string): void {
    if (signal === 'cancelled') {
      // A cancel sent to another node reaches the worker here; nothing of the attempt is applied (fenced).
      this.#running.get(taskId)?.abort(new AttemptInterrupted('cancelled'));
      this.#events.emit(`settled:${taskId}`);
    } else if (!this.#stopping) void this.kick();
  }

  /** Tells the store this node lives and what it runs; one heartbeat at a time. */
  #beat(): Promise<boolean> {
    return (this.#beating ??= this.#beatOnce().finally(() => (this.#beating = undefined)));
  }

  /**
   * Declared dead meanwhile (a stall longer than a lease): its claims were released and may run
   * elsewhere, so each attempt checks its lease at once (a released one stops; its fence fails
   * anyway), and it joins again.
   */
  async #beatOnce(): Promise<boolean> {
    const sentAt = performance.now();
    try {
      if (await this.store.nodes.heartbeat(this.instanceId, [...this.#running.keys()])) {
        // A heartbeat that waited most of a lease (on a lock, a full pool) observed nothing meanwhile.
        if (performance.now() - sentAt > this.#o.leaseMs / 2) this.#healthySince = undefined;
        else this.#healthySince ??= sentAt;
        return true;
      }
      this.#healthySince = undefined;
      this.#o.logger.warn('this node was declared dead (its heartbeat lapsed); its attempts check their leases');
      // Each attempt renews its lease now: one the reap released is refused and stops; one claimed
      // since the reap (its own attempt heard of it first, and the task was claimed anew) is this
      // node's and runs on, as stopping it would spend an attempt.
      this.#leaseChecks.emit('check');
      if (!this.#stopping)
        await this.store.nodes.register({
          id: this.instanceId,
          host: hostname(),
          pid: process.pid,
          workers: this.#o.concurrency,
        });
      return false;
    } catch (error) {
      this.#healthySince = undefined;
      this.#o.logger.error({ err: error }, 'node heartbeat failed');
      return false;
    }
  }

  /** Whether this node has watched the store, heartbeat after heartbeat, for a whole lease: only then does it judge others. */
  get #judging(): boolean {
    return this.#healthySince !== undefined && performance.now() - this.#healthySince >= this.#o.leaseMs;
  }

  /**
   * Creates a task, committed (synchronous=FULL) before this resolves. An identical request from the
   * same owner while one is still running resolves with that one instead.
   */
  async create(request: CreateTaskRequest): Promise<{ task: TaskRow; created: boolean }> {
    const handler = this.#handlers.get(request.kind);
    if (!handler) throw new Error(`No handler for task kind ${request.kind}`);
    if (this.#stopping) throw new EngineStoppingError('The server is shutting down and accepts no new tasks');
    const key = dedupeKey(request.kind, request.sameWorkAs ?? request.input);
    const message = handler.describe?.(request.input) ?? `Queued ${request.kind}`;
    const scope = await handler.scope?.(request.input);
    const maxAttempts = handler.maxAttempts ?? this.#o.maxAttempts;
    const result = await this.store.tasks.createOrFind(
      {
        id: newTaskId(),
        owner: request.owner,
        kind: request.kind,
        input: request.input,
        dedupeKey: key,
        statusMessage: message,
        ttlMs: request.ttlMs ?? this.#o.defaultTtlMs,
        pollIntervalMs: await this.pollIntervalMs(request.kind),
        maxAttempts,
        ...(scope ? { scopeKey: scope.key, scopeStart: scope.start, scopeEnd: scope.end } : {}),
      },
      // The attempts it was allowed, kept: a refund or a park raises the row's max_attempts.
      { message, data: { by: request.owner, maxAttempts } },
      request.admit ? (tx) => request.admit!(tx) : undefined,
    );
    if (result.created) this.#queue.noteQueued(1);
    if (result.created && this.#started) queueMicrotask(() => void this.kick());
    return result;
  }

  /** The task as stored, or undefined when unknown or past its TTL. */
  get(taskId: string): Promise<TaskRow | undefined> {
    return this.store.tasks.get(taskId);
  }

  /** What a poll shows of the task (no input), or undefined when unknown or past its TTL. */
  peek(taskId: string): Promise<TaskPollRow | undefined> {
    return this.store.tasks.poll(taskId);
  }

  /** Whether `owner` had a task `taskId` that has passed its TTL (swept or not); false for anyone else. */
  async expired(taskId: string, owner: string): Promise<boolean> {
    return (await this.store.tasks.expiredOwner(taskId)) === owner;
  }

  /**
   * Requests cancellation: the row turns `cancelled` now; a running attempt is stopped (here, or on
   * the node that runs it, through the store's signal) and its work discarded.
   */
  async cancel(taskId: string, by: string): Promise<boolean> {
    const changed = await this.store.tasks.cancel(taskId, 'Cancelled', by);
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
  async answer(
    taskId: string,
    responses: Record<string, unknown>,
    by: string,
    awaiting?: string,
  ): Promise<AnswerOutcome> {
    const outcome = await this.store.inputs.answer(taskId, responses, by, awaiting);
    this.#events.emit(`changed:${taskId}`);
    if (outcome.resumed && this.#started) queueMicrotask(() => void this.kick());
    return outcome;
  }

  /**
   * The poll interval for a task created now (of `kind`, when known): behind the whole queue, from
   * the queue snapshot polls use (at most a quarter second old) and what this node queued and claimed
   * since. A count per create grew with the queue and was most of a create's cost under load.
   */
  async pollIntervalMs(kind?: string): Promise<number> {
    const ahead = await this.#queue.depth(this.#o.now());
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
  async pollIntervalFor(row: TaskPollRow): Promise<number> {
    if (isTerminal(row.status)) return row.pollIntervalMs;
    if (row.status === 'input_required') return this.#o.basePollIntervalMs;
    const now = this.#o.now();
    if (row.heldFor !== null) return heldPollIntervalFor(this.#o.basePollIntervalMs, now - row.lastUpdatedAt);
    const running = row.claimedBy !== null && (row.leaseExpiresAt ?? 0) >= now;
    return this.#pollInterval({
      ahead: running ? 0 : await this.#queue.ahead(row, now),
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

  /**
   * Aborts when stop() has let running attempts finish within the grace or released them: from then
   * on no task moves in this process, so whoever still waits on one here is answered that the server
   * is shutting down (waitFor rejects; a 2025-11-25 tasks/result wait says so), not kept waiting.
   */
  get stopped(): AbortSignal {
    return this.#stopped.signal;
  }

  /** Resolves with the terminal row; calls onProgress with each new statusMessage meanwhile. */
  waitFor(taskId: string, onProgress?: (message: string) => void, signal?: AbortSignal): Promise<TaskRow | undefined> {
    return new Promise((resolve, reject) => {
      const check = () => {
        this.get(taskId).then((row) => {
          if (!row || isTerminal(row.status)) {
            cleanup();
            resolve(row);
          }
        }, reject);
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
        reject(
          new EngineStoppingError(
            `The server is shutting down; task ${taskId} stays queued and resumes when it restarts`,
          ),
        );
      };
      const cleanup = () => {
        clearInterval(timer);
        this.#events.off(`settled:${taskId}`, check);
        this.#events.off(`progress:${taskId}`, progress);
        signal?.removeEventListener('abort', aborted);
        this.#stopped.signal.removeEventListener('abort', shuttingDown);
      };
      // A signal that has already aborted fires no 'abort' event: answer at once.
      if (signal?.aborted) return aborted();
      if (this.#stopped.signal.aborted) return shuttingDown();
      this.#stopped.signal.addEventListener('abort', shuttingDown);
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

  /**
   * Claims queued tasks while there is room. Called on create, on finish, on a store signal and by
   * the sweeper. One claim loop at a time: a kick while one runs makes it go round once more.
   */
  kick(): Promise<void> {
    this.#kicks++;
    if (this.#kicking) return this.#kicking;
    this.#kicking = (async () => {
      try {
        let seen;
        do {
          seen = this.#kicks;
          await this.#claimWhileRoom();
        } while (seen !== this.#kicks && !this.#stopping);
      } catch (error) {
        this.#o.logger.error({ err: error }, 'claiming queued tasks failed');
      } finally {
        this.#kicking = undefined;
      }
    })();
    return this.#kicking;
  }

  async #claimWhileRoom(): Promise<void> {
    while (!this.#stopping && this.#running.size < this.#o.concurrency) {
      // Never its own running tasks: their leases may have lapsed while their attempts live on.
      // A lapsed lease is taken over only by a node that has watched the store for a whole lease.
      const row = await this.store.tasks.claimNext(this.instanceId, this.#o.leaseMs, [...this.#running.keys()], {
        takeOverLapsed: this.#judging,
      });
      if (!row) return;
      this.#launch(row);
    }
  }

  #launch(row: TaskRow): void {
    this.#queue.noteQueued(-1);
    const handler = this.#handlers.get(row.kind);
    const abort = new AbortController();
    this.#running.set(row.id, abort);
    this.#events.emit(`changed:${row.id}`);
    const startedAt = this.#o.now();
    const run = handler
      ? runAttempt(row, handler, abort, {
          store: this.store,
          pool: this.#o.pool,
          instanceId: this.instanceId,
          leaseMs: this.#o.leaseMs,
          heartbeatMs: Math.max(50, Math.floor(this.#o.leaseMs / 3)),
          logger: this.#o.logger,
          onProgress: (id, message) => this.#events.emit(`progress:${id}`, message),
          outageWaitMs: this.#o.outageWaitMs,
          leaseChecks: this.#leaseChecks,
        })
      : this.#failUnhandled(row);
    run
      .then((outcome) => {
        if (outcome === 'finished') this.#durations.record(row.kind, this.#o.now() - startedAt);
      })
      .catch((error: unknown) => this.#o.logger.error({ err: error, taskId: row.id }, 'task attempt crashed'))
      .finally(() => {
        if (this.#running.get(row.id) === abort) this.#running.delete(row.id);
        this.#events.emit(`settled:${row.id}`);
        if (!this.#stopping) setImmediate(() => void this.kick());
      });
  }

  /** A task of a kind this node has no handler for fails, through its own attempt's fence. */
  async #failUnhandled(row: TaskRow): Promise<'finished' | 'lost'> {
    const message = `No handler for task kind ${row.kind}`;
    const fence = { taskId: row.id, attempt: row.attempt, claimedBy: this.instanceId };
    try {
      await this.store.transaction((tx) =>
        tx.tasks.finish(fence, { status: 'failed', error: { code: -32603, message }, message }),
      );
      return 'finished';
    } catch {
      return 'lost';
    }
  }

  /**
   * Fails tasks out of attempts, deletes expired ones, and takes over the tasks of dead nodes: this
   * node first proves itself alive (and the store never reaps the reaper: a stall between its beat and
   * the reap must not release its own running attempts), and judges others only once
   * it has watched the store for a whole lease (back from an outage, it saw nobody's heartbeats);
   * then every node whose heartbeat lapsed for a lease is declared dead and its claims released,
   * tasks out of attempts are given up, and it claims.
   */
  async #sweep(): Promise<void> {
    try {
      await this.#beat();
      const judging = this.#judging;
      if (judging) {
        const dead = await this.store.nodes.reapLapsed(
          this.#o.leaseMs,
          'The node running this attempt stopped answering; the task waits for the next worker',
          this.instanceId,
        );
        if (dead.length > 0)
          this.#o.logger.warn({ nodes: dead }, 'took over the tasks of nodes whose heartbeat lapsed');
      }
      for (const row of judging ? await this.store.tasks.listExhausted([...this.#running.keys()]) : []) {
        const error = {
          code: -32603,
          message: `Gave up after ${await this.#countedAttempts(row)} attempt(s): each time, the process running it stopped (crashed, was killed, or lost its lease) before it finished`,
        };
        if (await this.store.tasks.failExhausted(row.id, error)) this.#events.emit(`settled:${row.id}`);
      }
      const swept = await this.store.tasks.sweepExpired();
      if (swept) this.#o.logger.info({ swept }, 'expired tasks deleted');
      await this.kick();
    } catch (error) {
      this.#o.logger.error({ err: error }, 'task sweep failed');
    }
  }

  /**
   * The attempts that counted against the task: a refunded or parked attempt raised `maxAttempts`
   * by one and did not count, so the attempt number reached overstates them by as many. The attempts
   * it was allowed are those its creation recorded (this node's setting for a task created without).
   */
  async #countedAttempts(row: { id: string; kind: string; attempt: number; maxAttempts: number }): Promise<number> {
    const created = (await this.store.tasks.events(row.id)).find((e) => e.kind === 'created');
    const recorded = (created?.data as { maxAttempts?: unknown } | null | undefined)?.maxAttempts;
    const allowed =
      typeof recorded === 'number' ? recorded : (this.#handlers.get(row.kind)?.maxAttempts ?? this.#o.maxAttempts);
    return Math.min(row.attempt, Math.max(1, row.attempt - Math.max(0, row.maxAttempts - allowed)));
  }

  /**
   * Stops claiming, gives running attempts `graceMs` to finish, releases the rest for the next
   * start, then leaves the store's nodes (any claim still held is released at once).
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.#stopping = true;
    clearInterval(this.#sweeper);
    clearInterval(this.#heartbeat);
    this.#unsubscribe?.();
    // A claim under way may still launch an attempt: let it, so the wait below covers that one too.
    await this.#kicking;
    const deadline = Date.now() + graceMs;
    while (this.#running.size > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
    for (const abort of this.#running.values()) abort.abort(new AttemptInterrupted('shutting down'));
    while (this.#running.size > 0) await new Promise((r) => setTimeout(r, 10));
    try {
      await this.store.nodes.unregister(
        this.instanceId,
        'The server shut down before this attempt finished; the task waits for the next worker',
      );
    } catch (error) {
      // The store is unreachable: the other nodes will find this one's heartbeat lapsed instead.
      this.#o.logger.error({ err: error }, 'leaving the store failed');
    }
    // Callers waiting on a task that now stays queued hear so instead of hanging.
    this.#stopped.abort(new Error('The server is shutting down'));
  }
}
