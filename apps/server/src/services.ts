import { readFileSync } from 'node:fs';
import { startWalCheckpointer, type SqliteStore, type Store } from '@reflow/db';
import { reflowTaskHandler, revertTaskHandler, validateSiteFile } from '@reflow/reflow';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { TaskEngine, WorkerPool, type Logger } from '@reflow/tasks';
import type { Config } from './config.ts';
import { fixtureTaskHandlers } from './conformance/index.ts';
import { createMetrics, watchServices, type Metrics } from './metrics/service-metrics.ts';
import { openStore } from './open-store.ts';

export interface Services {
  store: Store;
  pool: WorkerPool;
  engine: TaskEngine;
  /** The conformance suite's fixture tools are registered too (MCP_CONFORMANCE_FIXTURES). */
  conformanceFixtures: boolean;
  metrics: Metrics;
  /** Whose reflows wait for an operator's decision before applying (APPROVAL). */
  approval: Config['APPROVAL'];
  close(graceMs?: number): Promise<void>;
}

/** What a caller embedding the server may set beyond the configuration. */
export interface ServicesOptions {
  /** The solve worker's module (see ReflowTaskOptions.workerFile). */
  solveWorkerFile?: string;
}

/** Opens and migrates the store, seeds an empty one, starts the pool and the task engine. */
export async function createServices(config: Config, logger: Logger, options: ServicesOptions = {}): Promise<Services> {
  const store = await openStore(config, logger);
  try {
    await migrateAndSeed(store, config, logger);
  } catch (error) {
    await store.close();
    throw error;
  }
  // SQLite on a file: the WAL is checkpointed on a thread of its own, not inside the server's commits.
  const checkpointer =
    store.dialect === 'sqlite' && store.location !== ':memory:'
      ? startWalCheckpointer((store as SqliteStore).connection, {
          onError: (error) => logger.error({ err: error }, 'WAL checkpointer failed; checkpoints run inline again'),
        })
      : undefined;
  const pool = new WorkerPool(config.WORKERS, { maxOldGenerationSizeMb: config.WORKER_MAX_MEMORY_MB });
  const engine = new TaskEngine({
    store,
    pool,
    logger,
    leaseMs: config.LEASE_MS,
    defaultTtlMs: config.TASK_TTL_MS,
    basePollIntervalMs: config.POLL_INTERVAL_MS,
    maxAttempts: config.MAX_ATTEMPTS,
    outageWaitMs: config.OUTAGE_WAIT_MS,
  });
  const metrics = createMetrics();
  const observe = {
    solved: (ms: number) => metrics.solveSeconds.observe(ms / 1000),
    applied: (ms: number) => metrics.applySeconds.observe(ms / 1000),
  };
  engine.register(
    reflowTaskHandler({
      store,
      observe,
      applyHooks: faultHooks(config, logger),
      workerFile: options.solveWorkerFile,
    }),
  );
  engine.register(revertTaskHandler({ store }));
  if (config.MCP_CONFORMANCE_FIXTURES) for (const handler of fixtureTaskHandlers()) engine.register(handler);
  watchServices(metrics, { store, pool, engine });
  await engine.start();
  return {
    store,
    pool,
    engine,
    conformanceFixtures: config.MCP_CONFORMANCE_FIXTURES,
    metrics,
    approval: config.APPROVAL,
    /** Lets running attempts finish within graceMs or releases them, then closes the pool and the store. */
    async close(graceMs = config.SHUTDOWN_GRACE_MS) {
      await engine.stop(graceMs);
      await pool.close();
      await checkpointer?.stop();
      // SQLite only: fold the WAL back into the file, so a clean stop leaves one file.
      if (store.dialect === 'sqlite') (store as SqliteStore).connection.sqlite.pragma('wal_checkpoint(TRUNCATE)');
      await store.close();
    },
  };
}

/**
 * Applies pending migrations and, on an empty database, writes the seed site, in the store's one
 * migrating transaction: of two processes starting on a fresh database, one does both and the
 * other finds the site there. The file is read and validated only when it is needed.
 */
async function migrateAndSeed(store: Store, config: Config, logger: Logger): Promise<void> {
  const seedFile = config.SEED_FILE ?? DEMO_SITE_PATH;
  let summary: Record<string, unknown> = {};
  const seed = seedFile
    ? () => {
        const data = validateSiteFile(JSON.parse(readFileSync(seedFile, 'utf8')));
        summary = {
          site: data.site.name,
          rooms: data.rooms.length,
          series: data.series.length,
          bookings: data.bookings.length,
        };
        return data;
      }
    : undefined;
  const { seeded } = await store.migrate({ seed });
  if (seeded) logger.info({ ...summary, seedFile }, 'empty database seeded');
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
