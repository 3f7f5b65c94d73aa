import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openStore as open, type Store } from '@reflow/db';
import type { Logger } from '@reflow/tasks';
import type { Config } from './config.ts';

/**
 * The one place the server chooses and opens its store: PostgreSQL at DATABASE_URL (a cluster of
 * nodes), else SQLite at DATABASE_PATH (one host, the embedded default). Nothing is migrated here;
 * createServices does that. An unreachable PostgreSQL fails here, naming host and database only.
 */
export async function openStore(config: Config, logger: Logger): Promise<Store> {
  const path = config.DATABASE_PATH;
  if (path !== undefined && path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const store = await open({
    ...(config.DATABASE_URL === undefined ? { databasePath: path } : { databaseUrl: config.DATABASE_URL }),
    sqlite: { synchronous: config.SQLITE_SYNCHRONOUS },
    postgres: {
      applicationName: 'reflow',
      poolSize: config.PG_POOL_SIZE ?? config.WORKERS * 3 + 10,
      statementTimeoutMs: config.PG_STATEMENT_TIMEOUT_MS,
      lockTimeoutMs: config.PG_LOCK_TIMEOUT_MS,
      idleInTransactionTimeoutMs: config.PG_IDLE_IN_TRANSACTION_TIMEOUT_MS,
      // Dropped connections are expected while the database restarts: logged, never fatal.
      onError: (error) => logger.warn({ err: error }, 'database connection error'),
    },
  });
  logger.info({ store: store.dialect, location: store.location }, 'store opened');
  return store;
}
