// The PostgreSQL twin of durability-pragmas.test.ts: "accepted means durable" rests there on
// synchronous_commit=on (a COMMIT returns once its WAL is flushed). Read back from a connection of
// the running server's own pool and from a second store on the same database; a database set to
// synchronous_commit=off is refused at start, naming the setting.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { PostgresStore } from '@reflow/db';
import pg from 'pg';
import { openTestStore, startTestServer } from '../helpers/test-server.ts';
import { postgresOnly } from '../../../../scripts/test-store.mjs';

const TWIN = postgresOnly('the twin of durability-pragmas.test.ts; on SQLite that file checks the pragmas');

async function synchronousCommitOf(client: pg.Pool | pg.Client): Promise<string> {
  const { rows } = await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
  return rows[0].synchronous_commit;
}

test(
  'the running server commits with synchronous_commit=on, on its own connections and on a second store',
  TWIN,
  async (t) => {
    const server = await startTestServer({ WORKERS: '0' });
    t.after(() => server.close());
    assert.equal(server.services.store.dialect, 'postgres');
    assert.equal(await synchronousCommitOf((server.services.store as PostgresStore).pool), 'on');
    // A second store on the same database, as another node opens it.
    const second = (await openTestStore(server.databasePath)) as PostgresStore;
    try {
      assert.equal(await synchronousCommitOf(second.pool), 'on');
    } finally {
      await second.close();
    }
  },
);

test('a database set to synchronous_commit=off is refused at start, naming the setting', TWIN, async () => {
  const first = await startTestServer({ WORKERS: '0' });
  await first.close({ keepDatabase: true });
  const admin = new pg.Client({ connectionString: first.databasePath });
  await admin.connect();
  try {
    const { rows } = await admin.query<{ name: string }>('SELECT current_database() AS name');
    await admin.query(`ALTER DATABASE "${rows[0].name}" SET synchronous_commit = off`);
  } finally {
    await admin.end();
  }
  await assert.rejects(startTestServer({ WORKERS: '0' }, first.databasePath), /synchronous_commit=off/);
});
