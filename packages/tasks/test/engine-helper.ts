// Engines on this run's store (REFLOW_TEST_STORE) for the tests of this package: real SQLite
// files, or real PostgreSQL databases (one per `freshPath()`; a second engine on the same path is
// a second store on the same database, like a second node). Each test closes what it opened.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPostgresStore, openSqliteStore, SqliteStore, type Store } from '@reflow/db';
import { createTestDatabase } from '../../../scripts/postgres-for-tests.mjs';
import { onPostgres } from '../../../scripts/test-store.mjs';
import { TaskEngine, WorkerPool, type Logger, type TaskEngineOptions, type TaskHandler } from '../src/index.ts';
import { loadAwareDeadline } from '../../../scripts/test-wait.mjs';

export const silent: Logger = { info() {}, warn() {}, error() {}, child: () => silent };

/** A line an engine logged: its level, its fields (a child's bindings included) and its message. */
export interface LogLine {
  level: 'info' | 'warn' | 'error';
  fields: Record<string, unknown>;
  message: string;
}

/** A logger that keeps every line, for the tests of what an operator reads in the log. */
export function recordingLogger(): { logger: Logger; lines: LogLine[] } {
  const lines: LogLine[] = [];
  const make = (bindings: Record<string, unknown>): Logger => {
    const at =
      (level: LogLine['level']) =>
      (obj: object | string, msg?: string): void =>
        void lines.push(
          typeof obj === 'string'
            ? { level, fields: { ...bindings }, message: obj }
            : { level, fields: { ...bindings, ...obj }, message: msg ?? '' },
        );
    return { info: at('info'), warn: at('warn'), error: at('error'), child: (more) => make({ ...bindings, ...more }) };
  };
  return { logger: make({}), lines };
}

export interface OpenEngine {
  engine: TaskEngine;
  store: Store;
  /** The store's SQLite connection, for the raw SQL a test uses to set up a situation (SQLite-only tests). */
  connection: SqliteStore['connection'];
  pool: WorkerPool;
}

export function engineFactory() {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-engine-'));
  const opened: OpenEngine[] = [];
  /** PostgreSQL: the database standing for each path, created on first open. */
  const databases = new Map<string, Promise<{ url: string; drop(): Promise<void> }>>();
  let n = 0;
  async function openStoreAt(path: string, clock: (() => number) | undefined): Promise<Store> {
    if (!onPostgres()) return openSqliteStore(path, clock ? { clock } : {});
    // The database's clock judges leases and TTLs there; a test that moves the clock is SQLite-only.
    if (clock) throw new Error('A test that moves the store clock (now) runs on SQLite only: mark it sqliteOnly');
    if (!databases.has(path)) databases.set(path, createTestDatabase());
    return openPostgresStore((await databases.get(path)!).url);
  }
  return {
    freshPath: () => join(dir, `e${++n}.db`),
    /** A reader on the data at `path` (another connection, like another process); the caller closes it. */
    openReader: async (path: string): Promise<Store> =>
      onPostgres() ? openStoreAt(path, undefined) : openSqliteStore(path, { readonly: true }),
    /** `now`, when given, is the store's clock (every lease and TTL is judged by it) and the engine's (SQLite only). */
    async open(
      path: string,
      handlers: TaskHandler<any>[],
      options: Partial<Omit<TaskEngineOptions, 'store'>> & { poolSize?: number; maxOldGenerationSizeMb?: number } = {},
    ): Promise<OpenEngine> {
      const store = await openStoreAt(path, options.now);
      await store.migrate();
      const pool = new WorkerPool(options.poolSize ?? 1, { maxOldGenerationSizeMb: options.maxOldGenerationSizeMb });
      const engine = new TaskEngine({ store, pool, logger: silent, sweepIntervalMs: 60_000, ...options });
      for (const h of handlers) engine.register(h);
      const o = {
        engine,
        store,
        get connection(): SqliteStore['connection'] {
          if (!(store instanceof SqliteStore))
            throw new Error('This test reads raw SQLite: mark it sqliteOnly, or read through the store');
          return store.connection;
        },
        pool,
      };
      opened.push(o);
      return o;
    },
    async closeAll() {
      for (const o of opened.splice(0)) {
        // Bounded: an engine whose attempt ignores its abort fails the test instead of hanging it.
        const stopped = new AbortController();
        await Promise.race([
          o.engine.stop(0).finally(() => stopped.abort()),
          sleep(10_000, undefined, { signal: stopped.signal }).then(
            () => Promise.reject(new Error('engine.stop(0) did not return within 10 s')),
            () => undefined,
          ),
        ]);
        await o.pool.close();
        await o.store.close();
      }
    },
    /** Removes the SQLite files and drops the PostgreSQL databases (after closeAll). */
    removeDir: async () => {
      rmSync(dir, { recursive: true, force: true });
      for (const database of databases.values()) await (await database).drop();
      databases.clear();
    },
  };
}

/**
 * The task's terminal row, or a rejection once the task has shown no progress (no change of status,
 * attempt, claimant or message) for `idleMs` of time this process could run (a thread kept off the
 * CPU by a busy machine does not use up the budget): a test never waits on a stuck task forever,
 * and a slow machine that still moves the task along does not fail it.
 */
export async function settled(engine: TaskEngine, taskId: string, idleMs = 15_000) {
  const state = (row: Awaited<ReturnType<TaskEngine['get']>>) =>
    JSON.stringify([row?.status, row?.attempt, row?.claimedBy, row?.statusMessage]);
  let seen = state(await engine.get(taskId));
  let idle = loadAwareDeadline(idleMs);
  for (;;) {
    try {
      return await engine.waitFor(taskId, undefined, AbortSignal.timeout(1_000));
    } catch (error) {
      if ((error as Error).name !== 'TimeoutError') throw error;
      const now = state(await engine.get(taskId));
      if (now !== seen) {
        seen = now;
        idle = loadAwareDeadline(idleMs);
      } else if (idle.passed())
        throw new Error(`task ${taskId} made no progress for ${idleMs} ms: ${now}`, { cause: error });
    }
  }
}

/** Waits (bounded) until `probe` is true. */
export async function until(probe: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = loadAwareDeadline(timeoutMs);
  while (!(await probe())) {
    if (deadline.passed()) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

/**
 * A handler whose attempts wait on a gate the test opens. An attempt also ends when the engine
 * aborts it (cancel, lost lease, stop): a test whose assertion failed before it opened the gate
 * then still closes its engine, instead of hanging in engine.stop.
 */
export function gated(kind: string, extra: Partial<TaskHandler<any>> = {}) {
  const gates: (() => void)[] = [];
  const handler: TaskHandler<any> = {
    kind,
    async run(input, ctx) {
      ctx.signal.throwIfAborted();
      await new Promise<void>((resolve, reject) => {
        const open = () => {
          ctx.signal.removeEventListener('abort', aborted);
          resolve();
        };
        const aborted = () => {
          gates.splice(gates.indexOf(open), 1);
          reject(ctx.signal.reason);
        };
        gates.push(open);
        ctx.signal.addEventListener('abort', aborted, { once: true });
      });
      return { status: 'completed', result: { input }, message: 'done' };
    },
    ...extra,
  };
  return { handler, openNext: () => gates.shift()?.(), waiting: () => gates.length };
}
