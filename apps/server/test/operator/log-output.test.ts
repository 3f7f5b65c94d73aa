// The server process's log lines go out a chunk at a time (logging/log-destination.ts). These
// check what that must not cost: a quiet server's line still appears at once (within the flush
// interval, not when a chunk fills), a clean shutdown writes every line it buffered, and no line is
// ever split or merged with another.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshTestDatabase } from '../../../../scripts/test-store.mjs';
import { startServerProcess } from '../../harness/server-process.ts';
import { rpc } from '../helpers/test-server.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

const toolsListLines = (output: string) =>
  output.split('\n').filter((line) => line.includes('"method":"tools/list"') && line.includes('request completed'));

/** `npm start`'s entry as its own process, on a database of its own; killed and dropped after the test. */
async function serverOnFreshDatabase(t: { after(fn: () => Promise<void>): void }) {
  const database = await freshTestDatabase();
  const server = await startServerProcess(database.location, {}, true);
  t.after(async () => {
    await server.kill();
    await database.drop();
  });
  return server;
}

test("a quiet server's request line reaches stdout within a moment, while the server runs", async (t) => {
  const server = await serverOnFreshDatabase(t);
  assert.equal((await rpc(server.mcpUrl, 'tools/list')).status, 200);
  // 2 s of time the server could run: on a busy machine its flush timer may wait for a CPU longer.
  const deadline = loadAwareDeadline(2_000, ['self', server.pid]);
  while (toolsListLines(server.output()).length === 0 && !deadline.passed()) await sleep(20);
  assert.equal(toolsListLines(server.output()).length, 1, 'the line is out (the buffer is flushed every 100 ms)');
  assert.equal(server.dead, false);
});

test('a clean shutdown writes every buffered line, each whole', async (t) => {
  const server = await serverOnFreshDatabase(t);
  const answers = await Promise.all(Array.from({ length: 40 }, () => rpc(server.mcpUrl, 'tools/list')));
  assert.deepEqual(
    answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${JSON.stringify(a.body).slice(0, 300)}`),
    [],
    'every request answered 200',
  );
  // At once: the lines of the last requests are still in the buffer.
  assert.equal(await server.terminate(10_000), 'exit 0');
  assert.equal(toolsListLines(server.output()).length, 40);
  for (const line of server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{')))
    assert.doesNotThrow(() => JSON.parse(line), `a whole JSON line: ${line.slice(0, 200)}`);
});
