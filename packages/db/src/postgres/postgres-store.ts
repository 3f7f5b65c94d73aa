// The Store on PostgreSQL (node-postgres + drizzle): several nodes share one database. Every time a
// guarantee is judged by is the database's clock; claims are `FOR UPDATE SKIP LOCKED` with scope
// locks; signals are LISTEN/NOTIFY. See docs/architecture.md, "The PostgreSQL store".
import { sql } from 'drizzle-orm';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import type { SiteData } from '../queries/site-queries.ts';
import { GroupCommit, type BatchOutcome, type CreateOutcome, type PendingCreate } from '../group-commit.ts';
import type { NodeStore, SiteStore, Store, StoreQueries, StoreSignal } from '../store.ts';
import { EventEmitter } from 'node:events';
import { describeDatabaseUrl } from './database-url.ts';
import { migrateInTransaction, postgresMigrationsApplied } from './migrate.ts';
import { NOW_MS, type PgDb } from './pg-db.ts';
import { auditQueries } from './queries/audit-queries.ts';
import { bookingQueries } from './queries/booking-queries.ts';
import { inputQueries } from './queries/input-queries.ts';
import { nodeQueries } from './queries/node-queries.ts';
import { principalQueries } from './queries/principal-queries.ts';
import { siteQueries } from './queries/site-queries.ts';
import { taskClaimQueries } from './queries/task-claim-queries.ts';
import { taskListQueries } from './queries/task-list-queries.ts';
import {
  createLocked,
  LOCK_CREATES_TEXT,
  lockCreates,
  lockCreatesValues,
  pollMany,
  taskRecordQueries,
} from './queries/task-record-queries.ts';
import { CREATE_TASKS_STATEMENT, createTasksValues, writeCreates } from './queries/task-create-statement.ts';
import { taskStateQueries } from './queries/task-state-queries.ts';
import * as schema from './schema/index.ts';
import { SignalListener } from './signal-listener.ts';
import { SiteCache } from './site-cache.ts';
import { ReadBatch } from './read-batch.ts';
import type { TaskPollRow } from '../queries/task-poll-queries.ts';
import { pooledTransaction } from './pooled-transaction.ts';
import { rawTransaction } from './raw-transaction.ts';
import { NodePool } from './node-pool.ts';

export interface PostgresStoreOptions {
  /** Connections in the pool (10 by default; the server sizes it from its workers and request load). */
  poolSize?: number;
  /** How long a request waits for a connection before it fails (5 s by default): no hang while the database is away. */
  connectionTimeoutMs?: number;
  /**
   * Set on every connection, so a lock held elsewhere (an idle-in-transaction session, a `LOCK`)
   * or a runaway statement fails a request instead of holding its connection: `statement_timeout`
   * (30 s), `lock_timeout` (10 s) and `idle_in_transaction_session_timeout` (60 s) by default; 0 turns one off.
   */
  statementTimeoutMs?: number;
  lockTimeoutMs?: number;
  idleInTransactionTimeoutMs?: number;
  /** Hears errors that must not crash the process (an idle connection dropped, the LISTEN connection lost). */
  onError?: (error: Error) => void;
  /** `application_name` the node shows in pg_stat_activity. */
  applicationName?: string;
}

const PING_TIMEOUT_MS = 2000;

/**
 * Create batches committing at once on one node. One batch at a time follows the commit's flush
 * latency; with a second, the next batch runs its statements while the first waits for its flush.
 */
const CREATE_BATCHES_IN_FLIGHT = 2;

export class PostgresStore implements Store {
  readonly dialect = 'postgres' as const;
  readonly location: string;
  readonly pool: NodePool;
  readonly #db: PgDb;
  readonly #queries: StoreQueries;
  readonly #nodes: NodeStore;
  readonly #clientConfig: pg.ClientConfig;
  readonly #onError: (error: Error) => void;
  readonly #signals = new EventEmitter().setMaxListeners(0);
  #listener: SignalListener | undefined;
  /**
   * Creates outside a transaction: committed together, one transaction and one COMMIT per batch,
   * CREATE_BATCHES_IN_FLIGHT batches at once.
   */
  readonly #creates = new GroupCommit<PendingCreate, CreateOutcome>(
    (batch) => this.#commitCreates(batch),
    CREATE_BATCHES_IN_FLIGHT,
  );
  // Polls that reach the store together: one statement for all of them.
  readonly #polls = new ReadBatch<TaskPollRow>(
    (ids) => pollMany(this.pool, ids),
    (row) => row.id,
  );
  /** The site and room ids the creates read (site-cache.ts). */
  readonly #site = new SiteCache(async () => {
    const site = siteQueries(this.#db);
    const [row, roomIds] = await Promise.all([site.getSite(), site.roomIds()]);
    return { site: row, roomIds };
  });
  /** The database's clock minus this node's, as last measured. */
  #offsetMs = 0;

  constructor(url: string, options: PostgresStoreOptions = {}) {
    this.location = describeDatabaseUrl(url);
    this.#onError = options.onError ?? (() => {});
    const connectionTimeoutMillis = options.connectionTimeoutMs ?? 5000;
    this.#clientConfig = {
      connectionString: url,
      connectionTimeoutMillis,
      keepAlive: true,
      application_name: options.applicationName ?? 'reflow',
      statement_timeout: options.statementTimeoutMs ?? 30_000,
      lock_timeout: options.lockTimeoutMs ?? 10_000,
      idle_in_transaction_session_timeout: options.idleInTransactionTimeoutMs ?? 60_000,
      // Our statements are short and keyed; over a table of 100,000 finished tasks the planner's
      // estimate crossed JIT's threshold and a claim spent most of its 330 ms compiling.
      options: '-c jit=off',
    };
    this.pool = new NodePool({ ...this.#clientConfig, max: options.poolSize ?? 10, connectionTimeoutMillis });
    // An idle connection the server closed (a restart, a failover) emits here; unhandled, it would
    // end the process. The next request takes a fresh connection.
    this.pool.on('error', (error) => this.#onError(error));
    // pg-pool drops its own error listener from a client while it is checked out: a connection the
    // server ends between two statements of a transaction (a fast shutdown, a failover) would emit
    // an unheard 'error' and end the process. Heard here, the statement fails and the client is
    // discarded when it is released.
    this.pool.on('connect', (client) => client.on('error', (error) => this.#onError(error)));
    const db = drizzle(this.pool, { schema });
    // Every transaction on the pool (the queries' own included) checks out and gives back its
    // connection through pooledTransaction: drizzle's loses the connection when BEGIN fails.
    db.transaction = (fn) => pooledTransaction(this.pool, fn);
    this.#db = db;
    this.#queries = this.#bind(this.#db);
    this.#nodes = nodeQueries(this.#db, (dbNow, sentAt) => this.#measured(dbNow, sentAt));
  }

  /** Measures the offset to the database's clock (on open, and on each heartbeat through nodes). */
  async syncClock(): Promise<void> {
    const sentAt = Date.now();
    const [{ now }] = (await this.#db.execute<{ now: string }>(sql`select ${NOW_MS} as now`)).rows;
    this.#measured(Number(now), sentAt);
  }

  #measured(dbNow: number, sentAt: number): void {
    this.#offsetMs = dbNow - (sentAt + Date.now()) / 2;
  }

  clock(): number {
    return Date.now() + this.#offsetMs;
  }

  get tasks() {
    return this.#queries.tasks;
  }
  get taskList() {
    return this.#queries.taskList;
  }
  get inputs() {
    return this.#queries.inputs;
  }
  get site() {
    return this.#queries.site;
  }
  get bookings() {
    return this.#queries.bookings;
  }
  get audit() {
    return this.#queries.audit;
  }
  get principals() {
    return this.#queries.principals;
  }
  get nodes(): NodeStore {
    return this.#nodes;
  }
  now(): Promise<number> {
    return this.#queries.now();
  }

  /** A READ COMMITTED transaction; its `tx` runs the same queries in it (nested ones become savepoints). */
  transaction<T>(fn: (tx: StoreQueries) => Promise<T>): Promise<T> {
    return this.#db.transaction((tx) => fn(this.#bind(tx)));
  }

  /**
   * Group commit: the batch's locks first (in the one global order), then each create, in one
   * transaction; NOTIFYs are delivered at its COMMIT. A create without limits to check is one
   * statement; one with them runs in its own savepoint, so a refusal rolls back alone. Should a
   * statement fail (and PostgreSQL abort the whole transaction with it), each create is tried again
   * in a transaction of its own, so it fails alone.
   */
  async #commitCreates(batch: PendingCreate[]): Promise<BatchOutcome<CreateOutcome>[]> {
    try {
      if (batch.every((c) => !c.admit)) return await this.#commitPlainCreates(batch);
      return await this.#db.transaction(async (tx) => {
        await lockCreates(tx, batch);
        const outcomes: BatchOutcome<CreateOutcome>[] = [];
        for (const { task, event, admit } of batch) {
          if (!admit) {
            outcomes.push({ ok: true, value: await createLocked(tx, task, event, undefined) });
            continue;
          }
          try {
            const value = await tx.transaction((savepoint) =>
              createLocked(savepoint, task, event, () => admit(this.#bind(savepoint))),
            );
            outcomes.push({ ok: true, value });
          } catch (error) {
            outcomes.push({ ok: false, error });
          }
        }
        return outcomes;
      });
    } catch (error) {
      if (batch.length === 1) throw error;
      const alone = taskRecordQueries(this.#db, (tx) => this.#bind(tx)).createOrFind;
      return Promise.all(
        batch.map(({ task, event, admit }) =>
          alone(task, event, admit).then(
            (value): BatchOutcome<CreateOutcome> => ({ ok: true, value }),
            (failure: unknown): BatchOutcome<CreateOutcome> => ({ ok: false, error: failure }),
          ),
        ),
      );
    }
  }

  /**
   * A batch of creates without limits to check, on a connection of its own: BEGIN, the locks, one
   * named statement for the whole batch (parsed and planned once per connection), COMMIT.
   */
  #commitPlainCreates(batch: PendingCreate[]): Promise<BatchOutcome<CreateOutcome>[]> {
    return rawTransaction(this.pool, async (client) => {
      await client.query({
        name: 'reflow_lock_creates',
        text: LOCK_CREATES_TEXT,
        values: lockCreatesValues(batch),
      });
      const outcomes = await writeCreates(batch, async (round) => {
        const { rows } = await client.query<Record<string, unknown>>({
          name: CREATE_TASKS_STATEMENT.name,
          text: CREATE_TASKS_STATEMENT.text,
          values: createTasksValues(round),
        });
        return rows;
      });
      return outcomes.map((value) => ({ ok: true, value }));
    });
  }

  /** The pool now, and how many waits for a connection found it exhausted (for /metrics). */
  get poolStats(): { size: number; total: number; idle: number; waiting: number; exhausted: number } {
    const { options, totalCount, idleCount, waitingCount, exhausted } = this.pool;
    return { size: options.max, total: totalCount, idle: idleCount, waiting: waitingCount, exhausted };
  }

  /** Batched polls' figures: statements sent and the polls they answered. */
  get pollBatches(): { statements: number; reads: number } {
    return this.#polls.stats;
  }

  /** Group commit's figures: batches committed, the creates in them, and how many may commit at once. */
  get groupCommit(): { batches: number; creates: number; lanes: number } {
    return this.#creates.stats;
  }

  onSignal(fn: (signal: StoreSignal, taskId: string) => void): () => void {
    this.#listener ??= new SignalListener(
      this.#clientConfig,
      (signal, taskId) => this.#signals.emit('signal', signal, taskId),
      this.#onError,
      () => this.#site.invalidate(),
    );
    this.#signals.on('signal', fn);
    return () => this.#signals.off('signal', fn);
  }

  /** Resolves once the LISTEN connection is in place: signals committed after it are heard. */
  async listening(): Promise<void> {
    await this.#listener?.ready;
  }

  async ping(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`PostgreSQL at ${this.location} did not answer within ${PING_TIMEOUT_MS} ms`)),
        PING_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([
        this.pool.query({ text: 'SELECT 1', query_timeout: PING_TIMEOUT_MS } as pg.QueryConfig),
        timeout,
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async migrate(options: { seed?: () => SiteData } = {}): Promise<{ seeded: boolean }> {
    return this.#db.transaction(async (tx) => {
      await migrateInTransaction(tx, this.location);
      if (!options.seed) return { seeded: false };
      const site = siteQueries(tx);
      await site.lockForImport();
      if (await site.getSite()) return { seeded: false };
      await site.writeSite(options.seed(), false);
      return { seeded: true };
    });
  }

  migrationsApplied(): Promise<boolean> {
    return postgresMigrationsApplied(this.#db);
  }

  async close(): Promise<void> {
    await this.#listener?.stop();
    await this.pool.end();
  }

  /**
   * The site queries outside a transaction, the create's reads served by the site cache: an import
   * through this node drops it once committed.
   */
  #cachedSite(db: PgDb): SiteStore {
    const site = siteQueries(db);
    return {
      ...site,
      getSite: async () => (await this.#site.get()).site,
      roomIds: async () => [...(await this.#site.get()).roomIds],
      unknownRooms: async (ids) => {
        if (ids.length === 0) return [];
        const { known } = await this.#site.get();
        return ids.filter((id) => !known.has(id));
      },
      writeSite: async (data, replace) => {
        try {
          await site.writeSite(data, replace);
        } finally {
          this.#site.invalidate();
        }
      },
    };
  }

  /** Every query group on `db`: the pool, or one transaction. */
  #bind(db: PgDb): StoreQueries {
    const records = taskRecordQueries(db, (tx) => this.#bind(tx));
    return {
      tasks: {
        ...records,
        // Outside a transaction a create joins the next group commit; inside one it is part of it.
        ...(db === this.#db
          ? {
              createOrFind: (task, event, admit) => this.#creates.submit({ task, event, admit }),
              poll: (id) => this.#polls.read(id),
            }
          : {}),
        ...taskClaimQueries(db, this.pool),
        ...taskStateQueries(db),
      },
      taskList: taskListQueries(db),
      inputs: inputQueries(db),
      site: db === this.#db ? this.#cachedSite(db) : siteQueries(db),
      bookings: bookingQueries(db),
      audit: auditQueries(db),
      principals: principalQueries(db),
      now: async () => {
        const sentAt = Date.now();
        const [{ now }] = (await db.execute<{ now: string }>(sql`select ${NOW_MS} as now`)).rows;
        this.#measured(Number(now), sentAt);
        return Number(now);
      },
    };
  }
}

/**
 * Opens the PostgreSQL store at `url` and checks it can be reached (the error names host and
 * database, never the password); measures the clock offset. Does not migrate: call migrate().
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  const store = new PostgresStore(url, options);
  try {
    await store.syncClock();
    const { rows } = await store.pool.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
    // A create is acknowledged only once its COMMIT is durable: refuse a server that would lie about it.
    if (rows[0].synchronous_commit === 'off')
      throw new Error(
        `PostgreSQL at ${store.location} runs with synchronous_commit=off: an accepted task could be lost in a crash; turn it on`,
      );
  } catch (error) {
    await store.close().catch(() => {});
    // drizzle wraps the driver's error ("Failed query: …"); the driver's own says what went wrong.
    const root = (error as Error).cause instanceof Error ? ((error as Error).cause as Error) : (error as Error);
    const reason = (root.message || (root as NodeJS.ErrnoException).code || String(root)).replaceAll(
      url,
      store.location,
    );
    throw new Error(`Cannot use PostgreSQL at ${store.location}: ${reason}`, { cause: error });
  }
  return store;
}
