// The Store on SQLite (better-sqlite3): the synchronous queries behind the asynchronous interface.
// One connection per process. better-sqlite3 runs each statement to the end on the calling thread,
// so a plain call is atomic; only a transaction that awaits between its statements needs the others
// to wait, and they do (a queue on the connection) until it commits or rolls back.
import { openDatabase, type Connection, type OpenOptions } from './connection.ts';
import { migrateDatabase, migrationsApplied } from './migrate.ts';
import { queriesFor, type Queries } from './queries/queries-for.ts';
import type { SiteData } from './queries/site-queries.ts';
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import { GroupCommit, type BatchOutcome, type CreateOutcome, type PendingCreate } from './group-commit.ts';
import { asynchronousGroup, type Turn } from './asynchronous-group.ts';
import type {
  AuditStore,
  BookingStore,
  InputStore,
  NodeStore,
  PrincipalStore,
  SiteStore,
  Store,
  StoreQueries,
  StoreSignal,
  TaskListStore,
  TaskStore,
} from './store.ts';
import { walFlusher, type FlushWal } from './wal-flush.ts';

export interface SqliteStoreOptions extends OpenOptions {
  /** The clock every lease, TTL and timestamp is judged by (tests move it); Date.now by default. */
  clock?: () => number;
  /** Tests wrap the real WAL flush (wal-flush.ts) to hold it or to see it run. */
  wrapWalFlush?: (flush: FlushWal) => FlushWal;
}

/**
 * The transaction open on each file, shared by every store of this process on that file: a plain
 * write of one store runs synchronously and would wait for the file's write lock (busy_timeout),
 * blocking the very event loop the other store's open transaction needs to finish. So it waits here.
 */
const openOnFile = new Map<string | symbol, Promise<void>>();

export class SqliteStore implements Store {
  readonly dialect = 'sqlite' as const;
  readonly location: string;
  readonly clock: () => number;
  /** The connection, for what only SQLite has (pragmas, WAL checkpoints). */
  readonly connection: Connection;
  /** Built on first use: queries prepare their statements, which needs the tables migrated. */
  #q: Queries | undefined;
  #nodes: NodeStore | undefined;
  readonly #file: string | symbol;
  /** Settles when the transaction now open on this file (by any store of this process) ends; undefined when none is. */
  get #open(): Promise<void> | undefined {
    return openOnFile.get(this.#file);
  }
  set #open(open: Promise<void> | undefined) {
    if (open) openOnFile.set(this.#file, open);
    else openOnFile.delete(this.#file);
  }
  readonly #inside: StoreQueries;
  readonly #outside: StoreQueries;
  /** Creates outside a transaction: committed together, one transaction and one fsync per batch. */
  readonly #creates = new GroupCommit<PendingCreate, CreateOutcome>((batch) => this.#commitCreates(batch));
  /**
   * On a file at synchronous=FULL, the WAL's fsync after a write, run off the event loop
   * (wal-flush.ts); undefined otherwise (NORMAL and OFF never sync at commit, EXTRA stays as it is).
   */
  readonly #flushWal: FlushWal | undefined;
  readonly #walFile: ReturnType<typeof walFlusher> | undefined;
  /** `SELECT total_changes()`: whether a write changed anything, so a write that changed nothing skips the flush. */
  readonly #totalChanges: () => number;

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.connection = openDatabase(path, options);
    this.location = path;
    this.#file = path === ':memory:' || path === '' ? Symbol(path) : resolve(path);
    this.clock = options.clock ?? Date.now;
    const { sqlite } = this.connection;
    const full = sqlite.pragma('synchronous', { simple: true }) === 2;
    const wal = sqlite.pragma('journal_mode', { simple: true }) === 'wal';
    if (typeof this.#file === 'string' && full && wal && !options.readonly) {
      this.#walFile = walFlusher(`${this.#file}-wal`);
      this.#flushWal = options.wrapWalFlush ? options.wrapWalFlush(this.#walFile) : this.#walFile;
    }
    const changes = sqlite.prepare('SELECT total_changes()').pluck();
    this.#totalChanges = () => changes.get() as number;
    this.#inside = this.#groups(
      true,
      (fn) => Promise.resolve().then(fn),
      (fn) => Promise.resolve().then(fn),
    );
    this.#outside = this.#groups(
      false,
      async (fn) => {
        while (this.#open) await this.#open;
        return fn();
      },
      (fn) => this.#write(fn),
    );
  }

  readonly #signals = new EventEmitter().setMaxListeners(0);

  onSignal(fn: (signal: StoreSignal, taskId: string) => void): () => void {
    this.#signals.on('signal', fn);
    return () => this.#signals.off('signal', fn);
  }

  /** Nothing to wait for: signals come from this process only. */
  listening(): Promise<void> {
    return Promise.resolve();
  }

  /**
   * Signals of the open transaction, or of the write running now (#write), sent once it commits
   * (none of a rolled-back one).
   */
  #held: [StoreSignal, string][] | undefined;

  #signal(signal: StoreSignal, taskId: string): void {
    if (this.#held) this.#held.push([signal, taskId]);
    else this.#signals.emit('signal', signal, taskId);
  }

  /**
   * Runs a write's synchronous statements, holding the signals its queries send (a release, a reap):
   * they are sent by the caller once it has committed and is durable, never if it throws.
   */
  #holdingSignals<T>(fn: () => T): { value: T; signals: [StoreSignal, string][] } {
    const signals: [StoreSignal, string][] = (this.#held = []);
    try {
      return { value: fn(), signals };
    } finally {
      this.#held = undefined;
    }
  }

  get nodes(): NodeStore {
    return (this.#nodes ??= asynchronousGroup<NodeStore>(() => this.#queries().nodes, NODE_WRITES, {
      run: async (fn) => {
        while (this.#open) await this.#open;
        return fn();
      },
      write: (fn) => this.#write(fn),
    }));
  }

  get tasks() {
    return this.#outside.tasks;
  }
  get taskList() {
    return this.#outside.taskList;
  }
  get inputs() {
    return this.#outside.inputs;
  }
  get site() {
    return this.#outside.site;
  }
  get bookings() {
    return this.#outside.bookings;
  }
  get audit() {
    return this.#outside.audit;
  }
  get principals() {
    return this.#outside.principals;
  }
  now(): Promise<number> {
    return Promise.resolve(this.clock());
  }

  /** Runs `fn` with the connection to itself: every other call of this process on the file waits until it settles. */
  async #exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.#open) await this.#open;
    let end!: () => void;
    this.#open = new Promise((resolve) => (end = resolve));
    try {
      return await fn();
    } finally {
      this.#open = undefined;
      end();
    }
  }

  /**
   * Runs synchronous statements that may write (each commits as it runs) with the connection to
   * itself until they are on disk. On a file at FULL they commit at NORMAL and the WAL is flushed off
   * the event loop before anything else runs on the connection: nobody reads a row before it is durable.
   * The signals their queries send go out then, as a transaction's do.
   */
  #write<T>(fn: () => T): Promise<T> {
    const flushWal = this.#flushWal;
    if (!flushWal)
      return (async () => {
        while (this.#open) await this.#open;
        const { value, signals } = this.#holdingSignals(fn);
        for (const [signal, taskId] of signals) this.#signal(signal, taskId);
        return value;
      })();
    return this.#exclusive(async () => {
      const before = this.#totalChanges();
      const { value, signals } = this.#holdingSignals(() => this.#atNormal(fn));
      if (this.#totalChanges() !== before) await flushWal();
      for (const [signal, taskId] of signals) this.#signal(signal, taskId);
      return value;
    });
  }

  /** `fn` with synchronous=NORMAL (no fsync in COMMIT); FULL again before anything else can run. */
  #atNormal<T>(fn: () => T): T {
    const { sqlite } = this.connection;
    sqlite.exec('PRAGMA synchronous = NORMAL');
    try {
      return fn();
    } finally {
      sqlite.exec('PRAGMA synchronous = FULL');
    }
  }

  /**
   * BEGIN IMMEDIATE: it takes the write lock at once, so a later write cannot fail with SQLITE_BUSY
   * half way. It resolves, and its signals go out, once the commit is on disk (#write's flush).
   */
  async transaction<T>(fn: (tx: StoreQueries) => Promise<T>): Promise<T> {
    return this.#exclusive(async () => {
      const { sqlite } = this.connection;
      const flushWal = this.#flushWal;
      const held: [StoreSignal, string][] = (this.#held = []);
      let value: T;
      try {
        if (flushWal) sqlite.exec('PRAGMA synchronous = NORMAL');
        sqlite.exec('BEGIN IMMEDIATE');
        try {
          value = await fn(this.#inside);
          sqlite.exec('COMMIT');
        } catch (error) {
          if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
          throw error;
        }
      } finally {
        if (flushWal) sqlite.exec('PRAGMA synchronous = FULL');
        this.#held = undefined;
      }
      await flushWal?.();
      for (const [signal, taskId] of held) this.#signal(signal, taskId);
      return value;
    });
  }

  /** Group commit: every create of the batch in its own savepoint, all in one BEGIN IMMEDIATE … COMMIT. */
  #commitCreates(batch: PendingCreate[]): Promise<BatchOutcome<CreateOutcome>[]> {
    const { sqlite } = this.connection;
    return this.transaction(async () => {
      const outcomes: BatchOutcome<CreateOutcome>[] = [];
      for (const create of batch) {
        const signalsBefore = this.#held?.length ?? 0;
        sqlite.exec('SAVEPOINT create_task');
        try {
          const value = await this.#createIn(create);
          sqlite.exec('RELEASE create_task');
          outcomes.push({ ok: true, value });
        } catch (error) {
          sqlite.exec('ROLLBACK TO create_task');
          sqlite.exec('RELEASE create_task');
          // The signals of what it wrote (its admit's writes) go with it.
          this.#held?.splice(signalsBefore);
          outcomes.push({ ok: false, error });
        }
      }
      return outcomes;
    });
  }

  /**
   * A create's own work, inside the open transaction: the duplicate check, then the limits (`admit`,
   * counted inside it: no race past them), then the insert, stamped by the store's clock.
   */
  async #createIn({ task, event, admit }: PendingCreate): Promise<CreateOutcome> {
    const now = this.clock();
    const row = {
      ...task,
      status: 'working' as const,
      createdAt: now,
      lastUpdatedAt: now,
      expiresAt: now + task.ttlMs,
    };
    const existing = this.#queries().tasks.findWorkingDuplicate(row.owner, row.kind, row.dedupeKey);
    if (existing) return { task: existing, created: false };
    await admit?.(this.#inside);
    return { task: this.#queries().tasks.insert(row, event), created: true };
  }

  /** Group commit's figures: batches committed, the creates in them, and how many may commit at once. */
  get groupCommit(): { batches: number; creates: number; lanes: number } {
    return this.#creates.stats;
  }

  async migrate(options: { seed?: () => SiteData } = {}): Promise<{ seeded: boolean }> {
    while (this.#open) await this.#open;
    let seeded = false;
    migrateDatabase(this.connection, {
      andThen: () => {
        // Queries prepare statements, so they are built once the tables exist.
        const migrated = queriesFor(this.connection, this.clock);
        if (!options.seed || migrated.site.getSite()) return;
        migrated.site.writeSite(options.seed(), false);
        seeded = true;
      },
    });
    return { seeded };
  }

  async ping(): Promise<void> {
    this.connection.sqlite.prepare('SELECT 1').get();
  }

  async migrationsApplied(): Promise<boolean> {
    return migrationsApplied(this.connection);
  }

  async close(): Promise<void> {
    while (this.#open) await this.#open;
    this.connection.close();
    await this.#walFile?.close();
  }

  #queries(): Queries {
    return (this.#q ??= queriesFor(this.connection, this.clock, (signal, taskId) => this.#signal(signal, taskId)));
  }

  /**
   * The query groups, each call run through `run` (straight, or after the open transaction); calls
   * that write go through `write` (outside a transaction: #write, their fsync off the event loop).
   * A create joins the group commit. A create, a cancel and a resuming answer signal once done; a
   * release and a reap signal from their queries, held (#write, transaction) until they commit.
   */
  #groups(inTransaction: boolean, run: Turn, write: Turn): StoreQueries {
    const q = () => this.#queries();
    const turns = { run, write };
    const tasks = asynchronousGroup<Omit<TaskStore, 'createOrFind'>>(() => q().tasks, TASK_WRITES, turns);
    const inputs = asynchronousGroup<InputStore>(() => q().inputs, INPUT_WRITES, turns);
    const createOrFind: TaskStore['createOrFind'] = (task, event, admit) =>
      // Inside a caller's transaction it is part of that one; otherwise it joins the next group commit.
      inTransaction ? this.#createIn({ task, event, admit }) : this.#creates.submit({ task, event, admit });
    return {
      now: () => run(this.clock),
      tasks: Object.assign(Object.create(tasks) as TaskStore, {
        createOrFind: async (...args: Parameters<TaskStore['createOrFind']>) => {
          const created = await createOrFind(...args);
          if (created.created) this.#signal('created', created.task.id);
          return created;
        },
        cancel: async (...args: Parameters<TaskStore['cancel']>) => {
          const cancelled = await tasks.cancel(...args);
          if (cancelled) this.#signal('cancelled', args[0]);
          return cancelled;
        },
      }),
      taskList: asynchronousGroup<TaskListStore>(() => q().taskList, new Set(), turns),
      inputs: Object.assign(Object.create(inputs) as InputStore, {
        answer: async (...args: Parameters<InputStore['answer']>) => {
          const outcome = await inputs.answer(...args);
          if (outcome.resumed) this.#signal('answered', args[0]);
          return outcome;
        },
      }),
      site: asynchronousGroup<SiteStore>(() => q().site, new Set(['writeSite'] as const), turns),
      bookings: asynchronousGroup<BookingStore>(
        () => q().bookings,
        new Set(['vacate', 'move', 'setStatus'] as const),
        turns,
      ),
      audit: asynchronousGroup<AuditStore>(
        () => q().audit,
        new Set(['recordMove', 'recordUnresolved'] as const),
        turns,
      ),
      principals: asynchronousGroup<PrincipalStore>(() => q().principals, new Set(['takeToken'] as const), turns),
    };
  }
}

/** The task queries that write (each a transaction of its own, or a statement in the caller's). */
const TASK_WRITES: ReadonlySet<keyof Omit<TaskStore, 'createOrFind'>> = new Set([
  'claimNext',
  'resumeLease',
  'renewLease',
  'release',
  'releaseClaimsOf',
  'progress',
  'finish',
  'cancel',
  'failExhausted',
  'sweepExpired',
] as const);
const INPUT_WRITES: ReadonlySet<keyof InputStore> = new Set(['park', 'answer'] as const);
const NODE_WRITES: ReadonlySet<keyof NodeStore> = new Set([
  'register',
  'heartbeat',
  'reapLapsed',
  'unregister',
] as const);

/** Opens (creating when missing) the SQLite store at `path`. */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteStore {
  return new SqliteStore(path, options);
}
