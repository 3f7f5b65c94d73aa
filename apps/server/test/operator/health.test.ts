import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startTestServer } from '../helpers/test-server.ts';

test('/healthz answers; /readyz reports database, migrations and pool, and turns 503 once the pool is closed', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  assert.deepEqual(await (await fetch(`${server.url}/healthz`)).json(), { status: 'ok' });
  const ready = await fetch(`${server.url}/readyz`);
  assert.equal(ready.status, 200);
  assert.deepEqual(await ready.json(), { status: 'ready', database: true, migrations: true, pool: true });
  await server.services.pool.close();
  const notReady = await fetch(`${server.url}/readyz`);
  assert.equal(notReady.status, 503);
  assert.equal(((await notReady.json()) as { pool: boolean }).pool, false);
});

test('GET /mcp is refused with 405 (stateless server: no standalone stream)', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const res = await fetch(server.mcpUrl, { headers: { accept: 'text/event-stream' } });
  assert.equal(res.status, 405);
});
