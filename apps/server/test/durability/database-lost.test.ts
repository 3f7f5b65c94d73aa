// The database lost mid-run (PostgreSQL): a server of its own for this test is stopped
// (`pg_ctl stop -m fast`) while a task runs. /readyz answers 503 at once, MCP and /api requests
// answer an error at once (no hang, no crash); when the database is back the node recovers by
// itself: /readyz 200 again and the task completes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startExtraPostgres } from '../../../../scripts/postgres-for-tests.mjs';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';
import { startServerProcess, type ServerProcess } from '../../harness/server-process.ts';
import { rpc, waitForTaskStatus } from '../helpers/test-server.ts';

/**
 * What "at once" means here: far below any client's timeout and the pool's 5 s connection timeout.
 * Measured without the time this process's or the server's main thread spent waiting for a CPU (a loaded machine).
 */
const ANSWER_BOUND_MS = 3_000;

/**
 * Runs one request and times it. A request that fails says whether the server process ended (a
 * dropped connection is a bug, not a flake: the server must answer every request while the
 * database is away), with the end of its output.
 */
async function timed<T>(server: ServerProcess, what: string, fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const clock = loadAwareDeadline(ANSWER_BOUND_MS, ['self', server.pid], true);
  try {
    const value = await fn();
    return { value, ms: clock.elapsedMs() };
  } catch (error) {
    await Promise.race([server.exited, sleep(1_000)]);
    const state = server.dead ? `the server process ended (${await server.exited})` : 'the server is still running';
    throw new Error(`${what} failed (${String(error)}); ${state}:\n${server.output().slice(-4000)}`, { cause: error });
  }
}

test('PostgreSQL stopped mid-run: readyz 503, MCP and /api answer errors at once; back up: ready again, the task completes', async (t) => {
  const postgres = await startExtraPostgres('db-lost');
  t.after(() => postgres.remove());
  const server = await startServerProcess(
    '',
    {
      DATABASE_URL: `${postgres.url}/postgres`,
      DATABASE_PATH: '',
      MCP_CONFORMANCE_FIXTURES: 'true',
      WORKERS: '1',
      LEASE_MS: '3000',
    },
    true,
  );
  t.after(() => server.kill());
  const base = server.mcpUrl.replace(/\/mcp$/, '');
  assert.equal((await fetch(`${base}/readyz`)).status, 200);

  const { body: created } = await rpc(server.mcpUrl, 'tools/call', {
    name: 'slow_compute',
    arguments: { seconds: 2, label: 'outlives-the-database' },
  });
  const taskId: string = created.result.taskId;
  assert.ok(taskId, JSON.stringify(created));

  await postgres.stop();

  const ready = await timed(server, 'readyz while down', () => fetch(`${base}/readyz`));
  assert.equal(ready.value.status, 503);
  assert.equal(((await ready.value.json()) as any).database, false);
  assert.ok(ready.ms < ANSWER_BOUND_MS, `readyz answered in ${ready.ms} ms`);

  const poll = await timed(server, 'tasks/get while down', () => rpc(server.mcpUrl, 'tasks/get', { taskId }));
  t.diagnostic(
    `tasks/get while down: HTTP ${poll.value.status} ${JSON.stringify(poll.value.body)} in ${Math.round(poll.ms)} ms`,
  );
  assert.ok(poll.ms < ANSWER_BOUND_MS, `tasks/get answered in ${poll.ms} ms`);
  assert.ok(poll.value.body.error, 'a JSON-RPC error');
  assert.match(poll.value.body.error.message, /database/i);

  const call = await timed(server, 'tools/call while down', () =>
    rpc(server.mcpUrl, 'tools/call', { name: 'slow_compute', arguments: { seconds: 0, label: 'while-down' } }),
  );
  t.diagnostic(
    `tools/call while down: HTTP ${call.value.status} ${JSON.stringify(call.value.body)} in ${Math.round(call.ms)} ms`,
  );
  assert.ok(call.ms < ANSWER_BOUND_MS, `tools/call answered in ${call.ms} ms`);
  assert.equal(call.value.status, 503);
  assert.equal(call.value.body.error?.data?.code, 'RFL_DATABASE_UNAVAILABLE', 'a JSON-RPC error saying why');

  const api = await timed(server, '/api while down', () => fetch(`${base}/api/tasks/${taskId}`));
  const apiBody = (await api.value.json()) as any;
  t.diagnostic(`/api while down: HTTP ${api.value.status} ${JSON.stringify(apiBody)} in ${Math.round(api.ms)} ms`);
  assert.ok(api.ms < ANSWER_BOUND_MS, `/api answered in ${api.ms} ms`);
  assert.equal(api.value.status, 503);
  assert.equal(apiBody.code, 'RFL_DATABASE_UNAVAILABLE');

  // Longer than the attempt and than a lease: the attempt ends while the database is away.
  await sleep(4_000);
  assert.equal(server.dead, false, 'the server is still up');
  await postgres.start();
  const restarted = Date.now();

  const deadline = loadAwareDeadline(30_000, ['self', server.pid]);
  let readyAgain = 0;
  while (!deadline.passed()) {
    if ((await timed(server, 'readyz after the restart', () => fetch(`${base}/readyz`))).value.status === 200) {
      readyAgain = Date.now();
      break;
    }
    await sleep(200);
  }
  assert.ok(readyAgain, 'ready again once the database is back');
  t.diagnostic(`ready again ${readyAgain - restarted} ms after the database was`);
  const task = await waitForTaskStatus(server.mcpUrl, taskId, ['completed', 'failed', 'cancelled'], 60_000);
  assert.equal(task.status, 'completed', JSON.stringify(task));
});
