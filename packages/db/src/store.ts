// The asynchronous store: the one interface the engine, the reflow use case and the MCP surface
// talk to. Two implementations: SQLite (one host, embedded) and PostgreSQL (a cluster of nodes).
// Every time a guarantee is judged by (leases, TTLs, fences) is the store's clock: on PostgreSQL the
// database's `now()`, never a node's; on SQLite the one host's clock.
import type { AuditQueries, MoveAuditRow, UnresolvedAuditRow } from './queries/audit-queries.ts';
import type { BookingQueries, BookingRow } from './queries/booking-queries.ts';
import type { AnswerOutcome, TaskInputRow } from './queries/input-queries.ts';
import type { TokenTaken } from './queries/principal-queries.ts';
import type { SiteData, SiteRow, RoomRow } from './queries/site-queries.ts';
import type { TaskListCursor, TaskListFilter } from './queries/task-list-queries.ts';
import type { TaskPollRow } from './queries/task-poll-queries.ts';
import type { AttemptFence, TaskError, TaskEventRow, TaskRow } from './queries/task-rows.ts';
import type { BookingStatus, PendingInput, TaskStatus } from './schema/index.ts';

export type Dialect = 'sqlite' | 'postgres';

/** A task to write; the store stamps createdAt, lastUpdatedAt and expiresAt (createdAt + ttlMs) from its clock. */
export interface NewTask {
  id: string;
  owner: string;
  kind: string;
  input: unknown;
  dedupeKey: string;
  statusMessage: string;
  ttlMs: number;
  pollIntervalMs: number;
  maxAttempts: number;
  scopeKey?: string;
  scopeStart?: number;
  scopeEnd?: number;
}

export type TaskTerminal =
  { status: 'completed'; result: string; message: string } | { status: 'failed'; error: TaskError; message: string };

export interface ParkRequest {
  requests: Record<string, unknown>;
  state: unknown;
  message: string;
  awaiting?: string;
}

/** Tasks: records, the claim queue, and state changes. Every write of an attempt is fenced. */
export interface TaskStore {
  /**
   * Writes the task unless the same owner has identical work (same kind and dedupe key) under way,
   * in one transaction. `admit` runs inside it only when a new row would be written: throw to refuse.
   */
  createOrFind(
    task: NewTask,
    event: { message: string; data?: unknown },
    admit?: (tx: StoreQueries) => Promise<void>,
  ): Promise<{ task: TaskRow; created: boolean }>;
  /** The task while live (not past its TTL by the store's clock); undefined when unknown or expired. */
  get(id: string): Promise<TaskRow | undefined>;
  /** What a poll shows of a live task (no input). */
  poll(id: string): Promise<TaskPollRow | undefined>;
  /** The owner of a task past its TTL (swept or not), if any. */
  expiredOwner(id: string): Promise<string | undefined>;
  /** One owner's live tasks, newest first, a page at a time. */
  listForOwner(owner: string, limit: number, before?: TaskListCursor): Promise<TaskRow[]>;
  events(taskId: string): Promise<TaskEventRow[]>;

  /**
   * Claims the oldest runnable task for `claimedBy` under a lease of `leaseMs`; never one of `running`.
   * `takeOverLapsed: false` claims only queued tasks, none whose lease lapsed (a node that has not yet
   * watched the database for a whole lease cannot tell a lapsed holder from a slow one).
   */
  claimNext(
    claimedBy: string,
    leaseMs: number,
    running?: string[],
    options?: { takeOverLapsed?: boolean },
  ): Promise<TaskRow | undefined>;
  /** Extends the attempt's lease by `leaseMs` from now; false when it lost its fence, its lease lapsed included. */
  renewLease(fence: AttemptFence, leaseMs: number): Promise<boolean>;
  /**
   * A holder whose lease lapsed (a stall, a database outage) asks for it again: true when it still
   * owns the attempt and no other task took an overlapping scope meanwhile (the claim's own test).
   * The attempt goes on and no attempt is spent; false means it must stop.
   */
  resumeLease(fence: AttemptFence, leaseMs: number): Promise<boolean>;
  /**
   * Inside the transaction that writes an attempt's work, first: holds the task's scope until COMMIT
   * (PostgreSQL: its day locks, waiting for an overlapping apply to commit) and checks the fence,
   * lease included. Throws StaleAttemptError when the fence fails.
   */
  holdScope(fence: AttemptFence): Promise<void>;
  /** Gives the task back to the queue; allowed while the attempt owns it, even after its lease lapsed. */
  release(fence: AttemptFence, message: string, options?: { refundAttempt?: boolean }): Promise<boolean>;
  /** Who holds claims on working tasks. */
  claimants(): Promise<string[]>;
  releaseClaimsOf(claimants: string[], message: string): Promise<number>;
  /** Working tasks with every attempt used whose claim is gone or lapsed, except `running`. */
  listExhausted(running?: string[]): Promise<TaskRow[]>;
  queueDepth(): Promise<number>;
  /** The queue in the order it is claimed: oldest first, ties by id. */
  queueOrder(): Promise<{ createdAt: number; id: string }[]>;

  progress(fence: AttemptFence, message: string, data?: unknown): Promise<boolean>;
  /**
   * Writes the attempt's terminal state; inside a transaction, with the work it records. Throws
   * StaleAttemptError (so the transaction rolls back) when the fence fails.
   */
  finish(fence: AttemptFence, outcome: TaskTerminal): Promise<void>;
  cancel(id: string, message: string, by: string): Promise<boolean>;
  /** Fails a task out of attempts, judged again in the write: false when its last attempt holds its lease again. */
  failExhausted(id: string, error: TaskError): Promise<boolean>;
  /** Deletes tasks past their TTL, leaving tombstones; returns how many went. */
  sweepExpired(): Promise<number>;
}

/** What an operator's list shows: pages and counts under a filter. */
export interface TaskListStore {
  page(filter: TaskListFilter, limit: number, after?: TaskListCursor): Promise<{ rows: TaskRow[]; more: boolean }>;
  countLiveByDedupeKey(dedupeKey: string, statuses: TaskStatus[]): Promise<number>;
  countAwaiting(filter: Omit<TaskListFilter, 'statuses' | 'awaiting'>, awaiting: string): Promise<number>;
  countsByStatus(filter: Omit<TaskListFilter, 'statuses'>): Promise<Record<TaskStatus, number>>;
}

export interface InputStore {
  /** Parks a running attempt's task for answers (fenced); returns the pending requests by wire key. */
  park(fence: AttemptFence, park: ParkRequest): Promise<Record<string, PendingInput>>;
  get(taskId: string): Promise<TaskInputRow | undefined>;
  answer(taskId: string, answers: Record<string, unknown>, by: string, awaiting?: string): Promise<AnswerOutcome>;
}

export interface SiteStore {
  getSite(): Promise<SiteRow | undefined>;
  /**
   * The site's generation, read under a lock an import's write waits for (PostgreSQL `FOR SHARE`;
   * SQLite's write lock): inside an apply, no import can replace the site until it commits.
   */
  lockedGeneration(): Promise<number | undefined>;
  listRooms(): Promise<RoomRow[]>;
  /** The rooms' ids in order (what a refused create lists as the known rooms). */
  roomIds(): Promise<string[]>;
  /** Which of `ids` name no room, in the order given: every reflow_month create checks its offline rooms. */
  unknownRooms(ids: string[]): Promise<string[]>;
  bookingCount(): Promise<number>;
  /**
   * Inside a transaction: makes it the one import of the site until it ends (PostgreSQL: a lock every
   * import takes first; SQLite's write lock already does it). What it reads next is the site as the
   * last import left it, so "is there a site already" and the next generation are judged on that.
   */
  lockForImport(): Promise<void>;
  /** Writes the site (with `replace`, in place of the one there, as the next generation); takes lockForImport's lock itself. */
  writeSite(data: SiteData, replace: boolean): Promise<void>;
}

export interface BookingStore {
  overlapping(range: Parameters<BookingQueries['overlapping']>[0]): Promise<BookingRow[]>;
  get(id: string): Promise<BookingRow | undefined>;
  /** The same rows, locked until the transaction ends (PostgreSQL `FOR UPDATE`; SQLite's write lock holds them all). */
  getForUpdate(ids: string[]): Promise<BookingRow[]>;
  firstConflict(roomId: string, start: number, end: number, exclude: string[]): Promise<BookingRow | undefined>;
  /**
   * Takes confirmed bookings out of their slots until each is moved (inside the transaction that
   * moves them): the database refuses two confirmed bookings overlapping in one room after every
   * statement, so a booking moving into a slot another moving booking still holds must not meet it.
   */
  vacate(ids: string[]): Promise<void>;
  /** Moves a confirmed (or vacated) booking at `expectedVersion`; it is confirmed in its new slot. */
  move(id: string, expectedVersion: number, to: { roomId: string; startAt: number; endAt: number }): Promise<boolean>;
  setStatus(id: string, expectedVersion: number, status: BookingStatus): Promise<boolean>;
}

export interface AuditStore {
  recordMove(row: Parameters<AuditQueries['recordMove']>[0]): Promise<void>;
  recordUnresolved(row: Parameters<AuditQueries['recordUnresolved']>[0]): Promise<void>;
  movesOf(taskId: string): Promise<MoveAuditRow[]>;
  unresolvedOf(taskId: string): Promise<UnresolvedAuditRow[]>;
}

export interface PrincipalStore {
  /** Tasks of `owner` not yet terminal (and not expired). */
  activeTaskCount(owner: string): Promise<number>;
  /**
   * Takes one task-creation token from `principal`'s bucket (`burst` tokens, refilled at
   * `perMinute` by the store's clock), shared by every node: ok, or how long until one is there.
   * Inside the create transaction, so a refused or rolled-back create keeps its token.
   */
  takeToken(principal: string, burst: number, perMinute: number): Promise<TokenTaken>;
}

/** Every query group; inside a transaction the same groups run in it. */
export interface StoreQueries {
  tasks: TaskStore;
  taskList: TaskListStore;
  inputs: InputStore;
  site: SiteStore;
  bookings: BookingStore;
  audit: AuditStore;
  principals: PrincipalStore;
  /** The store's clock (epoch ms): inside a transaction, the instant it is judged at. */
  now(): Promise<number>;
}

/** A change another node (or this process) made that a node may act on at once, instead of at its next sweep. */
export type StoreSignal = 'created' | 'cancelled' | 'answered' | 'released';

/** One server process sharing the store. */
export interface NodeInfo {
  id: string;
  host: string;
  pid: number;
  workers: number;
  startedAt: number;
  heartbeatAt: number;
  /** Task ids it is running, as of its last heartbeat. */
  running: string[];
}

/** The nodes sharing the store, each with a heartbeat; a node whose heartbeat lapsed is dead. */
export interface NodeStore {
  register(node: { id: string; host: string; pid: number; workers: number }): Promise<void>;
  /** Records that the node lives and what it runs; false when it had been declared dead meanwhile (it must stop its attempts). */
  heartbeat(id: string, running: string[]): Promise<boolean>;
  /**
   * Declares dead every node whose heartbeat is older than `lapseMs` by the store's clock: removes it
   * and releases its claims (each with an event saying so), in one transaction. Returns their ids.
   * Never `reaper` itself: a node that stalled between its own heartbeat and the reap would find
   * its heartbeat lapsed and release its own running attempts; the other nodes judge it instead.
   */
  reapLapsed(lapseMs: number, message: string, reaper?: string): Promise<string[]>;
  /** The nodes in the order they started (ties by id). */
  list(): Promise<NodeInfo[]>;
  /** A clean shutdown: the node's claims are released and its row removed. */
  unregister(id: string, message: string): Promise<void>;
}

export interface Store extends StoreQueries {
  readonly dialect: Dialect;
  /** Where it is, for logs and errors: a file path, or host/database (never a password). */
  readonly location: string;
  /**
   * The store's clock, read without a round trip: on SQLite the host's clock; on PostgreSQL the
   * node's clock corrected by the offset to the database's, measured on each heartbeat. For hints
   * (poll intervals, elapsed times); every guarantee is judged inside the store.
   */
  clock(): number;
  /**
   * Group commit: creates made outside a transaction that arrive while one is being committed are
   * committed together in the next (one fsync on SQLite, one COMMIT on PostgreSQL), each in its own
   * savepoint; these count the batches committed and the creates in them. `lanes` batches may
   * commit at once (1 on SQLite, its one writer; more on PostgreSQL).
   */
  readonly groupCommit: { batches: number; creates: number; lanes: number };
  /**
   * PostgreSQL only: this node's connection pool now (size, open, idle, requests waiting) and how
   * many waits for a connection ended with it exhausted (PoolExhaustedError).
   */
  readonly poolStats?: { size: number; total: number; idle: number; waiting: number; exhausted: number };
  /**
   * PostgreSQL only: the statements this node's batched polls (`tasks.poll`) sent, and the polls they
   * answered; reads over statements is the mean batch.
   */
  readonly pollBatches?: { statements: number; reads: number };
  /** Runs `fn` in one write transaction: all its writes commit together, or none. */
  transaction<T>(fn: (tx: StoreQueries) => Promise<T>): Promise<T>;
  nodes: NodeStore;
  /**
   * Calls `fn` for each signal of any process sharing the store: on PostgreSQL LISTEN/NOTIFY (sent
   * inside the transaction that made the change, so only committed changes are heard); on SQLite,
   * this process's own changes only (other processes are caught by the sweep). Returns the unsubscribe.
   * Best effort: a signal may be lost (a dropped connection); the sweep is the backstop.
   */
  onSignal(fn: (signal: StoreSignal, taskId: string) => void): () => void;
  /**
   * Resolves once `onSignal` subscribers hear other nodes: a change committed after it reaches them
   * (PostgreSQL: the LISTEN connection is in place, or its first attempt failed; SQLite: at once).
   */
  listening(): Promise<void>;
  /** Throws when the database cannot be reached (for /readyz). */
  ping(): Promise<void>;
  /**
   * Applies every pending migration, then, when the database has no site, writes `seed()`: all in one
   * transaction, so of several processes starting together on an empty database one migrates and
   * seeds and the others find it done. Resolves with whether it seeded.
   */
  migrate(options?: { seed?: () => SiteData }): Promise<{ seeded: boolean }>;
  /** Whether every migration this build knows has been applied. */
  migrationsApplied(): Promise<boolean>;
  close(): Promise<void>;
}
