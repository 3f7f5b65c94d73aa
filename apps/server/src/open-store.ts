import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { openSqliteStore, type Store } from '@reflow/db';
import type { Logger } from '@reflow/tasks';
import type { Config } from './config.ts';

/**
 * The one place the server chooses and opens its store: SQLite at DATABASE_PATH (one host, the
 * embedded default). Nothing is migrated here; createServices does that.
 */
export async function openStore(config: Config, logger: Logger): Promise<Store> {
  if (config.DATABASE_PATH !== ':memory:') mkdirSync(dirname(config.DATABASE_PATH), { recursive: true });
  const store = openSqliteStore(config.DATABASE_PATH, { synchronous: config.SQLITE_SYNCHRONOUS });
  logger.info({ store: store.dialect, location: store.location }, 'store opened');
  return store;
}
