// `npx reflow tasks list|show|cancel` as an operator runs it, against a real server on a random port.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { McpHttpClient } from '../src/mcp-http-client.ts';
import { runReflow as reflow, scratch, server as startServer } from './cli-helpers.ts';

test('reflow tasks: list, show, cancel against a running server; clear errors and exit codes', async (t) => {
  const dir = scratch();
  // No workers: the task stays working until the operator cancels it.
  const server = await startServer(join(dir, 'reflow.db'), { WORKERS: '0' });
  t.after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const client = new McpHttpClient({ url: `${server.url}/mcp`, tasks: true });
  const handle = await client.request<{ taskId: string }>('tools/call', {
    name: 'reflow_month',
    arguments: { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' },
  });
  const id = handle.taskId;
  const url = ['--url', server.url];

  const list = await reflow(['tasks', 'list', ...url]);
  assert.equal(list.status, 0, list.stderr);
  assert.ok(list.stdout.includes(id) && /working/.test(list.stdout), list.stdout);
  assert.match(list.stdout, /working 1 · input_required 0 · completed 0/);
  const json = await reflow(['tasks', 'list', ...url, '--json', '--status', 'working']);
  assert.deepEqual(
    JSON.parse(json.stdout).tasks.map((x: any) => x.taskId),
    [id],
  );

  const show = await reflow(['tasks', 'show', id, ...url]);
  assert.equal(show.status, 0, show.stderr);
  assert.match(show.stdout, /Progress history \(1 events\)/);
  assert.match(show.stdout, /Queued: reflow studio-b, 7–20 Sep/);

  const cancel = await reflow(['tasks', 'cancel', id, ...url]);
  assert.equal(cancel.status, 0, cancel.stderr);
  assert.equal(cancel.stdout.trim(), `Cancelled ${id}`);
  assert.equal((await server.services.engine.get(id))?.status, 'cancelled');

  const again = await reflow(['tasks', 'cancel', id, ...url]);
  assert.equal(again.status, 1);
  assert.match(again.stderr, /already cancelled; only working tasks can be cancelled \(RFL_TASK_FINISHED\)/);
  const unknown = await reflow(['tasks', 'show', 'tsk_nope', ...url]);
  assert.equal(unknown.status, 1);
  assert.match(unknown.stderr, /No task tsk_nope .*\(RFL_UNKNOWN_TASK\)/);
  const badFilter = await reflow(['tasks', 'list', '--status', 'running', ...url]);
  assert.equal(badFilter.status, 1);
  assert.match(badFilter.stderr, /status: unknown status "running".*\(RFL_BAD_FILTER\)/);
  const down = await reflow(['tasks', 'list', '--url', 'http://127.0.0.1:9']);
  assert.equal(down.status, 2);
  assert.match(down.stderr, /Cannot reach http:\/\/127\.0\.0\.1:9.*Is the server running\?/);
});
