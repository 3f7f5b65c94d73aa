// A fresh, migrated store of this run's store (REFLOW_TEST_STORE: a SQLite file, or a database on
// the test PostgreSQL server) for the reflow tests, with plain SQL on it for setting up situations.
import { openStore, type Store } from '@reflow/db';
import { testSql, type TestSql } from '../../../scripts/test-sql.mjs';
import { databaseEnv, freshTestDatabase } from '../../../scripts/test-store.mjs';

export interface ReflowTestStore {
  store: Store;
  /** Where it is: a SQLite file, or a PostgreSQL database's URL. */
  location: string;
  sql: TestSql;
  /** Another store on the same data (another process or node); closed by `close`. */
  another(): Promise<Store>;
  /** Closes the stores and removes the database. */
  close(): Promise<void>;
}

export async function openReflowTestStore(options: { clock?: () => number } = {}): Promise<ReflowTestStore> {
  const database = await freshTestDatabase();
  const env = databaseEnv(database.location);
  const open = () =>
    openStore(
      env.DATABASE_URL
        ? { databaseUrl: env.DATABASE_URL }
        : { databasePath: env.DATABASE_PATH, sqlite: options.clock ? { clock: options.clock } : {} },
    );
  const store = await open();
  await store.migrate();
  const others: Store[] = [];
  return {
    store,
    location: database.location,
    sql: await testSql(store),
    async another() {
      const other = await open();
      others.push(other);
      return other;
    },
    async close() {
      for (const s of [...others, store]) await s.close();
      await database.drop();
    },
  };
}
