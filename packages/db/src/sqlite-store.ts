// The Store on SQLite (better-sqlite3): the synchronous queries behind the asynchronous interface.
// One connection per process. better-sqlite3 runs each statement to the end on the calling thread,
// so a plain call is atomic; only a transaction that awaits between its statements needs the others
// to wait, and they do (a queue on the connection) until it commits or rolls back.
import { openDatabase, type Connection, type OpenOptions } from './connection.ts';
import { migrateDatabase, migrationsApplied } from './migrate.ts';
import { queriesFor, type Queries } from './queries/queries-for.ts';
import type { SiteData } from './queries/site-queries.ts';
import type { TaskListCursor } from './queries/task-list-queries.ts';
import { EventEmitter } from 'node:events';
import { resolve } from 'node:path';
import { GroupCommit, type BatchOutcome, type CreateOutcome, type PendingCreate } from './group-commit.ts';
import type { NodeStore, Store, StoreQueries, StoreSignal } from './store.ts';

export interface SqliteStoreOptions extends OpenOptions {
  /** The clock every lease, TTL and timestamp is judged by (tests move it); Date.now by default. */
  clock?: () => number;
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

  constructor(path: string, options: SqliteStoreOptions = {}) {
    this.connection = openDatabase(path, options);
    this.location = path;
    this.#file = path === ':memory:' || path === '' ? Symbol(path) : resolve(path);
    this.clock = options.clock ?? Date.now;
    this.#inside = this.#groups(true, (fn) => Promise.resolve().then(fn));
    this.#outside = this.#groups(false, async (fn) => {
      while (this.#open) await this.#open;
      return fn();
    });
  }

  readonly #signals = new EventEmitter().setMaxListeners(0);

  onSignal(fn: (signal: StoreSignal, taskId: string) => void): () => void {
    this.#signals.on('signal', fn);
    return () => this.#signals.off('signal', fn);
  }

  /** Signals of the open transaction, sent once it commits (none of a rolled-back one). */
  #held: [StoreSignal, string][] | undefined;

  #signal(signal: StoreSignal, taskId: string): void {
    if (this.#held) this.#held.push([signal, taskId]);
    else this.#signals.emit('signal', signal, taskId);
  }

  get nodes(): NodeStore {
    const q = () => this.#queries();
    const clock = this.clock;
    const run = async <T>(fn: () => T): Promise<T> => {
      while (this.#open) await this.#open;
      return fn();
    };
    return {
      register: (node) => run(() => q().nodes.register(node, clock())),
      heartbeat: (id, running) => run(() => q().nodes.heartbeat(id, running, clock())),
      reapLapsed: (lapseMs, message) => run(() => q().nodes.reapLapsed(lapseMs, clock(), message)),
      list: () => run(() => q().nodes.list()),
      unregister: (id, message) => run(() => q().nodes.unregister(id, clock(), message)),
    };
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

  /** BEGIN IMMEDIATE: it takes the write lock at once, so a later write cannot fail with SQLITE_BUSY half way. */
  async transaction<T>(fn: (tx: StoreQueries) => Promise<T>): Promise<T> {
    while (this.#open) await this.#open;
    let end!: () => void;
    this.#open = new Promise((resolve) => (end = resolve));
    const { sqlite } = this.connection;
    const held: [StoreSignal, string][] = (this.#held = []);
    try {
      sqlite.exec('BEGIN IMMEDIATE');
      try {
        const value = await fn(this.#inside);
        sqlite.exec('COMMIT');
        this.#held = undefined;
        for (const [signal, taskId] of held) this.#signal(signal, taskId);
        return value;
      } catch (error) {
        if (sqlite.inTransaction) sqlite.exec('ROLLBACK');
        throw error;
      }
    } finally {
      this.#held = undefined;
      this.#open = undefined;
      end();
    }
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
    const existing = this.#queries().tasks.findWorkingDuplicate(row.owner, row.kind, row.dedupeKey, now);
    if (existing) return { task: existing, created: false };
    await admit?.(this.#inside);
    return { task: this.#queries().tasks.insert(row, event), created: true };
  }

  /** Group commit's figures: batches committed and the creates in them. */
  get groupCommit(): { batches: number; creates: number } {
    return this.#creates.stats;
  }

  async migrate(options: { seed?: () => SiteData } = {}): Promise<{ seeded: boolean }> {
    while (this.#open) await this.#open;
    let seeded = false;
    migrateDatabase(this.connection, {
      andThen: () => {
        // Queries prepare statements, so they are built once the tables exist.
        const migrated = queriesFor(this.connection);
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
  }

  #queries(): Queries {
    return (this.#q ??= queriesFor(this.connection));
  }

  /** The query groups, each call run through `run` (straight, or after the open transaction). */
  #groups(inTransaction: boolean, run: <T>(fn: () => T) => Promise<T>): StoreQueries {
    const q = () => this.#queries();
    const clock = this.clock;
    const createOrFind: StoreQueries['tasks']['createOrFind'] = (task, event, admit) =>
      // Inside a caller's transaction it is part of that one; otherwise it joins the next group commit.
      inTransaction ? this.#createIn({ task, event, admit }) : this.#creates.submit({ task, event, admit });
    return {
      now: () => run(clock),
      tasks: {
        createOrFind: async (task, event, admit) => {
          const created = await createOrFind(task, event, admit);
          if (created.created) this.#signal('created', created.task.id);
          return created;
        },
        get: (id) =>
          run(() => {
            const row = q().tasks.get(id);
            return row && row.expiresAt > clock() ? row : undefined;
          }),
        poll: (id) =>
          run(() => {
            const row = q().tasks.poll(id);
            return row && row.expiresAt > clock() ? row : undefined;
          }),
        expiredOwner: (id) => run(() => q().tasks.expiredOwner(id, clock())),
        listForOwner: (owner, limit, before?: TaskListCursor) =>
          run(() => q().tasks.listForOwner(owner, clock(), limit, before)),
        events: (taskId) => run(() => q().tasks.events(taskId)),
        claimNext: (claimedBy, leaseMs, running) =>
          run(() => q().tasks.claimNext(claimedBy, clock(), leaseMs, running)),
        renewLease: (fence, leaseMs) =>
          run(() => {
            const now = clock();
            return q().tasks.renewLease(fence, now + leaseMs, now);
          }),
        release: (fence, message, options) =>
          run(() => q().tasks.release(fence, clock(), message, options)).then((released) => {
            if (released) this.#signal('released', fence.taskId);
            return released;
          }),
        claimants: () => run(() => q().tasks.claimants()),
        releaseClaimsOf: (claimants, message) => run(() => q().tasks.releaseClaimsOf(claimants, clock(), message)),
        listExhausted: (running) => run(() => q().tasks.listExhausted(clock(), running)),
        queueDepth: () => run(() => q().tasks.queueDepth(clock())),
        queueOrder: () => run(() => q().tasks.queueOrder(clock())),
        progress: (fence, message, data) => run(() => q().tasks.progress(fence, clock(), message, data)),
        finish: (fence, outcome) => run(() => q().tasks.finish(fence, clock(), outcome)),
        cancel: (id, message, by) =>
          run(() => q().tasks.cancel(id, clock(), message, by)).then((cancelled) => {
            if (cancelled) this.#signal('cancelled', id);
            return cancelled;
          }),
        failExhausted: (id, error) => run(() => q().tasks.failExhausted(id, clock(), error)),
        sweepExpired: () => run(() => q().tasks.sweepExpired(clock())),
      },
      taskList: {
        page: (filter, limit, after) => run(() => q().taskList.page(filter, clock(), limit, after)),
        countLiveByDedupeKey: (key, statuses) => run(() => q().taskList.countLiveByDedupeKey(key, statuses, clock())),
        countAwaiting: (filter, awaiting) => run(() => q().taskList.countAwaiting(filter, awaiting, clock())),
        countsByStatus: (filter) => run(() => q().taskList.countsByStatus(filter, clock())),
      },
      inputs: {
        park: (fence, park) => run(() => q().inputs.park(fence, clock(), park)),
        get: (taskId) => run(() => q().inputs.get(taskId)),
        answer: (taskId, answers, by, awaiting) =>
          run(() => q().inputs.answer(taskId, clock(), answers, by, awaiting)).then((outcome) => {
            if (outcome.resumed) this.#signal('answered', taskId);
            return outcome;
          }),
      },
      site: {
        getSite: () => run(() => q().site.getSite()),
        listRooms: () => run(() => q().site.listRooms()),
        bookingCount: () => run(() => q().site.bookingCount()),
        writeSite: (data, replace) => run(() => q().site.writeSite(data, replace)),
      },
      bookings: {
        overlapping: (range) => run(() => q().bookings.overlapping(range)),
        get: (id) => run(() => q().bookings.get(id)),
        // SQLite's write lock, taken at BEGIN IMMEDIATE, already keeps every row as read.
        getForUpdate: (ids) => run(() => ids.map((id) => q().bookings.get(id)).filter((row) => row !== undefined)),
        firstConflict: (roomId, start, end, exclude) =>
          run(() => q().bookings.firstConflict(roomId, start, end, exclude)),
        move: (id, expectedVersion, to) => run(() => q().bookings.move(id, expectedVersion, to)),
        setStatus: (id, expectedVersion, status) => run(() => q().bookings.setStatus(id, expectedVersion, status)),
      },
      audit: {
        recordMove: (row) => run(() => q().audit.recordMove(row)),
        recordUnresolved: (row) => run(() => q().audit.recordUnresolved(row)),
        movesOf: (taskId) => run(() => q().audit.movesOf(taskId)),
        unresolvedOf: (taskId) => run(() => q().audit.unresolvedOf(taskId)),
      },
      principals: {
        activeTaskCount: (owner) => run(() => q().principals.activeTaskCount(owner, clock())),
        takeToken: (principal, burst, perMinute) =>
          run(() => q().principals.takeToken(principal, burst, perMinute, clock())),
      },
    };
  }
}

/** Opens (creating when missing) the SQLite store at `path`. */
export function openSqliteStore(path: string, options: SqliteStoreOptions = {}): SqliteStore {
  return new SqliteStore(path, options);
}
