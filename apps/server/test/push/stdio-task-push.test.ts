// Task Status Notifications over stdio: `reflow mcp` as a host runs it (a child process), spoken to
// by the official SDK Client pinned to 2026-07-28. subscriptions/listen naming tasks is acknowledged
// with the ids this connection may follow (an unknown one left out), then carries notifications/tasks
// up to the terminal one, as over HTTP; a task run by another process on the same store is heard too.
// A 2025-11-25 connection gets notifications/tasks/status, unsolicited, for the tasks it created.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client, type Notification } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { TaskStatusNotificationV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { freshTestDatabase } from '../../../../scripts/test-store.mjs';
import { createRawDispatch } from '../../harness/ext-tasks-session.ts';
import { reflowOn, rpc, startTestServer, TASKS, waitForTaskStatus } from '../helpers/test-server.ts';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(root, 'apps/cli/bin/reflow.mjs');

/**
 * Reads the child's stderr as it comes (an unread pipe fills and stalls the child's logging) and
 * keeps the end of it; if the child ends while the test still waits, says so with that end, since
 * the wait itself then fails only as "the event loop has already resolved".
 */
function watchChild(transport: StdioClientTransport, client: Client) {
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => (tail = (tail + chunk.toString()).slice(-8_000)));
  let closing = false;
  client.onclose = () => {
    if (!closing) console.error(`the reflow mcp child ended early; the end of its stderr:\n${tail}`);
  };
  return {
    stderr: () => tail,
    closing: () => (closing = true),
  };
}

/** The official Client and ext-tasks session (which creates the tasks), declaring the Tasks extension, on `reflow mcp` over a database (SQLite file or PostgreSQL URL). */
async function stdioClient(location: string, workers: number) {
  const database = /^postgres(ql)?:\/\//.test(location) ? ['--database-url', location] : ['--database', location];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', ...database, '--workers', String(workers)],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', POLL_INTERVAL_MS: '100' },
    cwd: root,
    stderr: 'pipe',
  });
  const clientInfo = { name: 'stdio-listener', version: '0.0.0' };
  const clientCapabilities = { extensions: { [TASKS]: {} } };
  const client = new Client(clientInfo, {
    capabilities: clientCapabilities,
    // A child on PostgreSQL may take a while to answer its first request on a busy machine.
    versionNegotiation: { mode: { pin: '2026-07-28' }, probe: { timeoutMs: 120_000 } },
  });
  const notifications: any[] = [];
  const waiters = new Set<() => void>();
  client.fallbackNotificationHandler = async (n: Notification) => {
    notifications.push(n);
    for (const wake of waiters) wake();
  };
  const child = watchChild(transport, client);
  await client.connect(transport);
  const session = createTaskSessionFromClient(client, {
    endpointId: 'stdio',
    rawDispatch: createRawDispatch(transport),
    v2RequestFraming: { protocolVersion: '2026-07-28', clientInfo, clientCapabilities },
  });
  // The SDK's codec keeps only the core filter keys of an acknowledgement (taskIds is the
  // extension's), so the acknowledgement is read as it came over the pipe.
  const acks: any[] = [];
  const dispatch = transport.onmessage as (message: unknown, extra?: unknown) => void;
  transport.onmessage = ((message: any, extra?: unknown) => {
    if (message.method === 'notifications/subscriptions/acknowledged') acks.push(message);
    dispatch(message, extra);
  }) as typeof transport.onmessage;
  /** Creates a reflow_month task through the ext-tasks session; its id. */
  const createTask = async (day: number) => {
    const execution = await session.callTool('reflow_month', reflowOn(day));
    assert.equal(execution.kind, 'task');
    return { taskId: execution.handle.taskId, settle: () => execution.settle() };
  };
  /** Resolves with the first notification matching `predicate`, waiting at most `timeoutMs`. */
  const until = (predicate: (n: any) => boolean, timeoutMs = 60_000) =>
    new Promise<any>((resolve, reject) => {
      const check = () => {
        const found = notifications.find((n) => predicate(n));
        if (!found) return;
        waiters.delete(check);
        clearTimeout(timer);
        resolve(found);
      };
      const timer = setTimeout(() => {
        waiters.delete(check);
        reject(new Error(`no such notification in ${timeoutMs} ms; got ${JSON.stringify(notifications)}`));
      }, timeoutMs);
      waiters.add(check);
      check();
    });
  /** Listens for the tasks; the ids the server acknowledged. */
  const listen = async (taskIds: string[]) => {
    const subscription = await client.listen({ taskIds } as never);
    return { subscription, honoured: acks.at(-1)?.params.notifications.taskIds as string[] };
  };
  const close = async () => {
    child.closing();
    await client.close();
  };
  return { client, close, notifications, until, createTask, listen };
}

const taskNotifications = (notifications: any[], taskId: string) =>
  notifications.filter((n) => n.method === 'notifications/tasks' && n.params.taskId === taskId);

test('stdio: a listener gets notifications/tasks up to completed for a task created on its connection, unknown ids left out', async (t) => {
  const database = await freshTestDatabase();
  t.after(() => database.drop());
  const { close, notifications, until, createTask, listen } = await stdioClient(database.location, 2);
  t.after(close);

  const created = await createTask(9);
  const { subscription, honoured } = await listen([created.taskId, 'tsk_unknown_0000']);
  assert.deepEqual(honoured, [created.taskId]);

  const done = await until((n) => n.method === 'notifications/tasks' && n.params.status === 'completed');
  const mine = taskNotifications(notifications, created.taskId);
  for (const n of mine) TaskStatusNotificationV2Schema.parse(n);
  assert.equal(mine.at(-1), done, 'the terminal notification is the last');
  assert.equal(done.params.result.structuredContent.window.from, '2026-09-09');
  assert.ok(mine.length >= 2, `where it stood, then changes: ${JSON.stringify(mine.map((n) => n.params.status))}`);
  // It carries what tasks/get shows: the result the task settles to.
  const { outcome } = await created.settle();
  assert.equal(outcome.status, 'completed');
  assert.deepEqual(
    (resultFromTaskOutcome(outcome) as { structuredContent: unknown }).structuredContent,
    done.params.result.structuredContent,
  );

  await subscription.close();
  assert.equal(await subscription.closed, 'local');
});

test('stdio: a task run by another process on the same store is pushed as it changes', async (t) => {
  // The stdio server runs nothing itself (no workers): an HTTP server on the same data runs the task.
  const runner = await startTestServer({ POLL_INTERVAL_MS: '100' });
  t.after(() => runner.close());
  const { close, notifications, until, createTask, listen } = await stdioClient(runner.databasePath, 0);
  t.after(close);

  const created = await createTask(10);
  const { honoured } = await listen([created.taskId]);
  assert.deepEqual(honoured, [created.taskId]);
  // The other process claims it once it hears of it (its sweep, at the latest).
  const { body } = await rpc(runner.mcpUrl, 'tasks/get', { taskId: created.taskId }, { tasks: true });
  assert.ok(body.result, 'both processes see the same task');
  await waitForTaskStatus(runner.mcpUrl, created.taskId, ['completed'], 120_000);
  const done = await until((n) => n.method === 'notifications/tasks' && n.params.status === 'completed', 10_000);
  assert.equal(taskNotifications(notifications, created.taskId).at(-1), done);
});

test('stdio, 2025-11-25: the connection gets notifications/tasks/status for a task it created, up to completed', async (t) => {
  const database = await freshTestDatabase();
  t.after(() => database.drop());
  const location = database.location;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      bin,
      'mcp',
      ...(/^postgres(ql)?:\/\//.test(location) ? ['--database-url', location] : ['--database', location]),
    ],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', POLL_INTERVAL_MS: '100' },
    cwd: root,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'stdio-2025', version: '0.0.0' }, { capabilities: {} });
  const statuses: any[] = [];
  let wake = () => {};
  client.fallbackNotificationHandler = async (n: Notification) => {
    if (n.method === 'notifications/tasks/status') statuses.push(n.params);
    wake();
  };
  const child = watchChild(transport, client);
  await client.connect(transport);
  t.after(async () => {
    child.closing();
    await client.close();
  });
  assert.equal(client.getProtocolEra(), 'legacy');
  const anyJson = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } };
  const created = (await client.request(
    { method: 'tools/call', params: { name: 'reflow_month', arguments: reflowOn(16), task: {} } } as never,
    anyJson as never,
  )) as { task: { taskId: string } };
  const { taskId } = created.task;
  const deadline = Date.now() + 60_000;
  while (!statuses.some((s) => s.taskId === taskId && s.status === 'completed')) {
    assert.ok(
      Date.now() < deadline,
      `no completed status in 60 s; got ${JSON.stringify(statuses)}; the end of the server's stderr: ${child.stderr()}`,
    );
    // A kept (not unref'd) timer: if the child dies, the loop still comes back here to fail with the reason.
    await new Promise<void>((resolve) => {
      wake = resolve;
      setTimeout(resolve, 1_000);
    });
  }
  const mine = statuses.filter((s) => s.taskId === taskId);
  assert.equal(mine.at(-1).status, 'completed', 'the terminal status is the last');
  assert.deepEqual(
    Object.keys(mine.at(-1)).sort(),
    ['createdAt', 'lastUpdatedAt', 'pollInterval', 'status', 'statusMessage', 'taskId', 'ttl']
      .filter((k) => k in mine.at(-1))
      .sort(),
  );
});
