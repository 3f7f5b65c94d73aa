import { mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrateDatabase, openDatabase, queriesFor, type Connection, type Queries } from '@reflow/db';
import { importSite, reflowTaskHandler, revertTaskHandler } from '@reflow/reflow';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { TaskEngine, WorkerPool, type Logger } from '@reflow/tasks';
import type { Config } from './config.ts';
import { fixtureTaskHandlers } from './conformance/index.ts';
import { createMetrics, watchServices, type Metrics } from './metrics/service-metrics.ts';

export interface Services {
  connection: Connection;
  queries: Queries;
  pool: WorkerPool;
  engine: TaskEngine;
  /** The conformance suite's fixture tools are registered too (MCP_CONFORMANCE_FIXTURES). */
  conformanceFixtures: boolean;
  metrics: Metrics;
  /** Whose reflows wait for an operator's decision before applying (APPROVAL). */
  approval: Config['APPROVAL'];
  close(graceMs?: number): Promise<void>;
}

/** Opens and migrates the database, seeds an empty one, starts the pool and the task engine. */
export function createServices(config: Config, logger: Logger): Services {
  if (config.DATABASE_PATH !== ':memory:') mkdirSync(dirname(config.DATABASE_PATH), { recursive: true });
  const connection = openDatabase(config.DATABASE_PATH, { synchronous: config.SQLITE_SYNCHRONOUS });
  const seedFile = config.SEED_FILE ?? DEMO_SITE_PATH;
  // Seeding in the migrating transaction: of two processes starting on a fresh file, one does both
  // and the other, waiting for the lock, finds the site there. (Queries prepare statements, so they
  // are built once the tables exist.)
  migrateDatabase(connection, {
    andThen: () => {
      const migrated = queriesFor(connection);
      if (!seedFile || migrated.site.getSite()) return;
      const summary = importSite(JSON.parse(readFileSync(seedFile, 'utf8')), migrated);
      logger.info({ ...summary, seedFile }, 'empty database seeded');
    },
  });
  const queries = queriesFor(connection);
  const pool = new WorkerPool(config.WORKERS, { maxOldGenerationSizeMb: config.WORKER_MAX_MEMORY_MB });
  const engine = new TaskEngine({
    connection,
    pool,
    logger,
    leaseMs: config.LEASE_MS,
    defaultTtlMs: config.TASK_TTL_MS,
    basePollIntervalMs: config.POLL_INTERVAL_MS,
    maxAttempts: config.MAX_ATTEMPTS,
  });
  const metrics = createMetrics();
  const observe = {
    solved: (ms: number) => metrics.solveSeconds.observe(ms / 1000),
    applied: (ms: number) => metrics.applySeconds.observe(ms / 1000),
  };
  engine.register(reflowTaskHandler({ connection, queries, observe, applyHooks: faultHooks(config, logger) }));
  engine.register(revertTaskHandler({ queries }));
  if (config.MCP_CONFORMANCE_FIXTURES) for (const handler of fixtureTaskHandlers()) engine.register(handler);
  watchServices(metrics, { connection, queries, pool, engine });
  engine.start();
  return {
    connection,
    queries,
    pool,
    engine,
    conformanceFixtures: config.MCP_CONFORMANCE_FIXTURES,
    metrics,
    approval: config.APPROVAL,
    /** Lets running attempts finish within graceMs or releases them, then closes the pool and the database. */
    async close(graceMs = config.SHUTDOWN_GRACE_MS) {
      await engine.stop(graceMs);
      await pool.close();
      connection.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      connection.close();
    },
  };
}

/** The test-only crash hook (FAULT_KILL_IN_APPLY_AFTER_MOVES); undefined, and so inert, unless configured. */
function faultHooks(config: Config, logger: Logger) {
  const after = config.FAULT_KILL_IN_APPLY_AFTER_MOVES;
  if (after === undefined) return undefined;
  logger.warn({ after }, 'TEST-ONLY fault injection on: this process kills itself inside its first apply transaction');
  return {
    afterMoveWritten: (written: number) => {
      if (written >= after) process.kill(process.pid, 'SIGKILL');
    },
  };
}
