import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import * as schema from './schema/index.ts';

/** The drizzle database, with the better-sqlite3 handle under it for the few statements drizzle would slow down. */
export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };
export type SynchronousMode = 'FULL' | 'NORMAL' | 'OFF';

export interface Connection {
  db: Db;
  sqlite: Database.Database;
  path: string;
  close(): void;
}

export interface OpenOptions {
  /** FULL by default: a task id that reached a client must survive a power cut. */
  synchronous?: SynchronousMode;
  busyTimeoutMs?: number;
  readonly?: boolean;
  /** Called with every statement run, values inlined (better-sqlite3's `verbose`): for tests of query plans. */
  verbose?: (sql: string) => void;
}

/** Opens a connection with the pragmas every connection must have (docs/architecture.md). */
export function openDatabase(path: string, options: OpenOptions = {}): Connection {
  const sqlite = new Database(path, {
    readonly: options.readonly ?? false,
    ...(options.verbose ? { verbose: (sql: unknown) => options.verbose!(String(sql)) } : {}),
  });
  if (!options.readonly) sqlite.pragma('journal_mode = WAL');
  sqlite.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
  const db = drizzle(sqlite, { schema });
  return { db, sqlite, path, close: () => sqlite.close() };
}
