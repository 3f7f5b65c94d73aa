// Picks the store: PostgreSQL when a database URL is given, else SQLite at a path.
import { openPostgresStore, type PostgresStoreOptions } from './postgres/postgres-store.ts';
import { DatabaseUrlError, describeDatabaseUrl } from './postgres/database-url.ts';
import { openSqliteStore, type SqliteStoreOptions } from './sqlite-store.ts';
import type { Store } from './store.ts';

export interface OpenStoreOptions {
  /** postgres://user:password@host:port/database: the shared store of a cluster. */
  databaseUrl?: string;
  /** A SQLite file: the embedded store of one host. */
  databasePath?: string;
  sqlite?: SqliteStoreOptions;
  postgres?: PostgresStoreOptions;
}

/** Opens PostgreSQL at `databaseUrl`, or SQLite at `databasePath`; one of them, never both. Does not migrate. */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const { databaseUrl, databasePath } = options;
  if (databaseUrl !== undefined && databasePath !== undefined)
    throw new DatabaseUrlError(
      'Both a database URL (PostgreSQL) and a database path (SQLite) were given; choose one store',
    );
  if (databaseUrl !== undefined) {
    describeDatabaseUrl(databaseUrl); // a malformed URL fails here, with what is wrong
    return openPostgresStore(databaseUrl, options.postgres);
  }
  if (!databasePath) throw new Error('No store: give a database URL (PostgreSQL) or a database path (SQLite)');
  return openSqliteStore(databasePath, options.sqlite);
}
