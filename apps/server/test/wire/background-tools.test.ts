// Hosts that speak no task protocol: reflow_month {background:true} answers at once with a task id,
// reflow_status follows it to the same result a waiting call returns, reflow_cancel stops one.
// Driven by the official SDK Client over Streamable HTTP, as such a host would.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startTestServer } from '../helpers/test-server.ts';

const ARGS = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };

async function connect(url: string) {
  const client = new Client({ name: 'no-tasks-host', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

type Status = {
  taskId: string;
  status: string;
  pollIntervalMs?: number;
  result?: { moved: number; unresolved: number; affected: number; moves: unknown[] };
};

test('background:true answers at once with a task id; reflow_status follows it to the final result', async (t) => {
  const server = await startTestServer({ POLL_INTERVAL_MS: '100' });
  t.after(() => server.close());
  const client = await connect(server.mcpUrl);
  t.after(() => client.close());

  const tools = await client.listTools();
  const names = tools.tools.map((x) => x.name);
  for (const name of ['reflow_month', 'reflow_status', 'reflow_cancel'])
    assert.ok(names.includes(name), `${name} is listed`);
  const described = tools.tools.find((x) => x.name === 'reflow_month')!;
  assert.match(
    described.description ?? '',
    /background:true.*reflow_status/s,
    'the description tells a model how to use it',
  );

  const started = await client.callTool({ name: 'reflow_month', arguments: { ...ARGS, background: true } });
  assert.notEqual(started.isError, true, JSON.stringify(started.content));
  const handle = (started.structuredContent as { background: { taskId: string; status: string } }).background;
  assert.match(handle.taskId, /^tsk_[0-9a-f]{40}$/);
  assert.equal(handle.status, 'working');
  assert.match(
    (started.content as { text: string }[])[0].text,
    new RegExp(`reflow_status with \\{"taskId":"${handle.taskId}"\\}`),
  );

  let status: Status | undefined;
  const deadline = Date.now() + 60_000;
  let polls = 0;
  for (;;) {
    const answer = await client.callTool({ name: 'reflow_status', arguments: { taskId: handle.taskId } });
    assert.notEqual(answer.isError, true, JSON.stringify(answer.content));
    status = answer.structuredContent as Status;
    polls++;
    if (status.status !== 'working') break;
    assert.ok(Date.now() < deadline, 'task settled within a minute');
    await sleep(status.pollIntervalMs ?? 100);
  }
  assert.equal(status.taskId, handle.taskId);
  assert.equal(status.status, 'completed');
  assert.ok(polls >= 1);
  assert.equal(status.result!.affected, 142);
  assert.equal(status.result!.moved + status.result!.unresolved, 142);

  // The same result the engine stored for the task, exactly.
  const row = (await server.services.engine.get(handle.taskId))!;
  assert.deepEqual(status.result, JSON.parse(row.result!).structuredContent);
});

test('reflow_cancel cancels a background task; unknown ids are a clear tool error', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const client = await connect(server.mcpUrl);
  t.after(() => client.close());

  const started = await client.callTool({ name: 'reflow_month', arguments: { ...ARGS, background: true } });
  const { taskId } = (started.structuredContent as { background: { taskId: string } }).background;
  const cancelled = await client.callTool({ name: 'reflow_cancel', arguments: { taskId } });
  assert.equal((cancelled.structuredContent as Status).status, 'cancelled');
  assert.match((cancelled.content as { text: string }[])[0].text, /Cancelled reflow task .*nothing was moved/);
  const again = await client.callTool({ name: 'reflow_cancel', arguments: { taskId } });
  assert.match((again.content as { text: string }[])[0].text, /already ended cancelled/);
  const status = await client.callTool({ name: 'reflow_status', arguments: { taskId } });
  assert.equal((status.structuredContent as Status).status, 'cancelled');

  for (const tool of ['reflow_status', 'reflow_cancel']) {
    const missing = await client.callTool({
      name: tool,
      arguments: { taskId: 'tsk_0000000000000000000000000000000000000000' },
    });
    assert.equal(missing.isError, true);
    assert.match(
      (missing.content as { text: string }[])[0].text,
      /No reflow task tsk_0+: unknown, expired, or started by someone else/,
    );
  }
  // Another principal's task reads as no task, and cannot be cancelled.
  const { task: foreign } = await server.services.engine.create({
    owner: 'someone-else',
    kind: 'reflow_month',
    input: { month: '2026-09', offlineRooms: ['studio-c'], from: '2026-09-01', to: '2026-09-30', dryRun: true },
  });
  for (const tool of ['reflow_status', 'reflow_cancel']) {
    const hidden = await client.callTool({ name: tool, arguments: { taskId: foreign.id } });
    assert.equal(hidden.isError, true, `${tool} hides another principal's task`);
  }
  assert.equal((await server.services.engine.get(foreign.id))!.status, 'working');

  const bad = await client.callTool({ name: 'reflow_month', arguments: { ...ARGS, background: 'yes' } });
  assert.equal(bad.isError, true);
  assert.match((bad.content as { text: string }[])[0].text, /background/);
});
