// The Tasks wire, byte for byte: raw JSON-RPC over a real socket, checked against the official
// ext-tasks schemas and against the store read by a second connection.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CreateTaskResultV2Schema, GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import {
  openTestStore,
  rpc,
  startTestServer,
  TASKS,
  waitForTaskStatus,
  type TestServer,
} from '../helpers/test-server.ts';
import { testSql } from '../../../../scripts/test-sql.mjs';

const DEMO = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };

describe('MCP Tasks extension on the wire', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(async () => (server as TestServer | undefined)?.close()); // unset when before() failed

  test('server/discover advertises the tasks extension', async () => {
    const { body } = await rpc(server.mcpUrl, 'server/discover');
    assert.deepEqual(body.result.capabilities.extensions[TASKS], {});
    assert.ok(body.result.supportedVersions.includes('2026-07-28'));
  });

  test('reflow_month answers a declaring client with a flat CreateTaskResult, committed before the response', async () => {
    const { status, body } = await rpc(server.mcpUrl, 'tools/call', {
      name: 'reflow_month',
      arguments: { ...DEMO, dry_run: true },
    });
    assert.equal(status, 200);
    const result = body.result;
    assert.equal(result.resultType, 'task');
    assert.equal(result.task, undefined, 'no nested task object');
    assert.match(result.taskId, /^tsk_[0-9a-f]{40}$/);
    assert.equal(result.status, 'working');
    assert.ok(Number.isInteger(result.ttlMs) && result.ttlMs > 0);
    assert.ok(Number.isInteger(result.pollIntervalMs) && result.pollIntervalMs > 0);
    for (const field of ['createdAt', 'lastUpdatedAt']) assert.ok(!Number.isNaN(Date.parse(result[field])), field);
    assert.match(result.statusMessage, /reflow studio-b|Reflowing/);
    assert.ok(CreateTaskResultV2Schema.safeParse(result).success, 'matches the official CreateTaskResult schema');

    // The row is already durable: a second connection to the store sees it.
    const reader = await openTestStore(server.databasePath);
    try {
      const row = await reader.tasks.get(result.taskId);
      assert.ok(row, 'task row visible to a second connection');
    } finally {
      await reader.close();
    }

    // tasks/get right after works, and is flat with resultType complete.
    const got = await rpc(server.mcpUrl, 'tasks/get', { taskId: result.taskId });
    assert.equal(got.body.result.resultType, 'complete');
    assert.equal(got.body.result.taskId, result.taskId);
    assert.ok(GetTaskResultV2Schema.safeParse(got.body.result).success, JSON.stringify(got.body.result));

    const done = await waitForTaskStatus(server.mcpUrl, result.taskId, ['completed', 'failed']);
    assert.equal(done.status, 'completed', JSON.stringify(done.error));
    assert.ok(GetTaskResultV2Schema.safeParse({ ...done, resultType: 'complete' }).success);
    const sc = done.result.structuredContent;
    assert.equal(sc.affected, 142);
    assert.equal(sc.moved + sc.unresolved, 142);
    assert.equal(sc.applied, false);
    assert.ok(Array.isArray(done.result.content) && done.result.content[0].type === 'text');
    assert.equal(done.error, undefined);
  });

  test('the same call from a client without the extension answers synchronously', async () => {
    const { body } = await rpc(
      server.mcpUrl,
      'tools/call',
      { name: 'reflow_month', arguments: { ...DEMO, dry_run: true } },
      { tasks: false },
    );
    assert.equal(body.result.resultType, 'complete');
    assert.equal(body.result.structuredContent.affected, 142);
    assert.equal(body.result.taskId, undefined);
  });

  test('a client without the extension that sends a progress token gets progress notifications, then the result', async () => {
    const res = await fetch(server.mcpUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'reflow_month',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: {
          name: 'reflow_month',
          arguments: { ...DEMO, dry_run: true },
          _meta: {
            progressToken: 'p-1',
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    const messages = (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data:'))
      .map((l) => JSON.parse(l.slice(5)));
    const progress = messages.filter((m) => m.method === 'notifications/progress');
    assert.ok(progress.length >= 2, `saw ${progress.length} progress notifications`);
    assert.ok(progress.every((m) => m.params.progressToken === 'p-1' && typeof m.params.message === 'string'));
    const final = messages.find((m) => m.id === 7);
    assert.equal(final.result.structuredContent.affected, 142);
  });

  test('short tools answer directly even to a declaring client', async () => {
    const { body } = await rpc(server.mcpUrl, 'tools/call', { name: 'list_rooms', arguments: {} });
    assert.equal(body.result.resultType, 'complete');
    assert.ok(body.result.structuredContent.rooms.length >= 5);
  });

  test('tools/list shows reflow_month with an outputSchema', async () => {
    const { body } = await rpc(server.mcpUrl, 'tools/list');
    const tool = body.result.tools.find((t: { name: string }) => t.name === 'reflow_month');
    assert.ok(tool.outputSchema?.properties?.moved);
    assert.deepEqual(
      new Set(body.result.tools.map((t: { name: string }) => t.name)),
      new Set(['list_rooms', 'list_bookings', 'reflow_month', 'reflow_status', 'reflow_cancel', 'revert_reflow']),
    );
  });

  test('tasks/cancel acks, the task shows cancelled, and cancelling again still acks', async () => {
    // An accept-only server (no workers) keeps the task queued, so the cancel cannot race the solve.
    const acceptOnly = await startTestServer({ WORKERS: '0' });
    try {
      const created = await rpc(acceptOnly.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: DEMO });
      const taskId = created.body.result.taskId;
      const cancel = await rpc(acceptOnly.mcpUrl, 'tasks/cancel', { taskId });
      assert.deepEqual(
        Object.keys(cancel.body.result).filter((k) => k !== '_meta'),
        ['resultType'],
      );
      assert.equal(cancel.body.result.resultType, 'complete');
      const got = await rpc(acceptOnly.mcpUrl, 'tasks/get', { taskId });
      assert.equal(got.body.result.status, 'cancelled');
      assert.equal((await rpc(acceptOnly.mcpUrl, 'tasks/cancel', { taskId })).body.result.resultType, 'complete');
      assert.equal((await rpc(acceptOnly.mcpUrl, 'tasks/get', { taskId })).body.result.status, 'cancelled');
    } finally {
      await acceptOnly.close();
    }
  });

  test('a task accepted by a process that stopped is run by the next one, and its moves are applied once', async () => {
    const first = await startTestServer({ WORKERS: '0' });
    const created = await rpc(first.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: DEMO });
    const taskId = created.body.result.taskId;
    await first.close({ keepDatabase: true });
    const second = await startTestServer({ WORKERS: '1' }, first.databasePath);
    try {
      const done = await waitForTaskStatus(second.mcpUrl, taskId, ['completed', 'failed']);
      assert.equal(done.status, 'completed');
      const sc = done.result.structuredContent;
      assert.equal(sc.applied, true);
      assert.equal(sc.moved + sc.unresolved, 142);
      const reader = await openTestStore(second.databasePath);
      try {
        const sql = await testSql(reader);
        const audited = await sql.value('SELECT count(*) AS n FROM reflow_moves WHERE task_id = ?', taskId);
        assert.equal(audited, sc.moved, 'one audit row per applied move');
        const overlaps = await sql.value(
          `SELECT count(*) AS n FROM bookings a JOIN bookings b ON a.room_id = b.room_id AND a.id < b.id
           WHERE a.status = 'confirmed' AND b.status = 'confirmed' AND a.start_at < b.end_at AND b.start_at < a.end_at`,
        );
        assert.equal(overlaps, 0);
        const flagged = await sql.value("SELECT count(*) AS n FROM bookings WHERE status = 'needs_rebooking'");
        assert.equal(flagged, sc.unresolved);
      } finally {
        await reader.close();
      }
    } finally {
      await second.close();
    }
  });

  test('unknown task ids are -32602; undeclared clients get -32021; tasks/result and tasks/list are -32601', async () => {
    assert.equal((await rpc(server.mcpUrl, 'tasks/get', { taskId: 'tsk_nope' })).body.error.code, -32602);
    assert.equal((await rpc(server.mcpUrl, 'tasks/cancel', { taskId: 'tsk_nope' })).body.error.code, -32602);
    assert.equal(
      (await rpc(server.mcpUrl, 'tasks/get', { taskId: 'tsk_nope' }, { tasks: false })).body.error.code,
      -32021,
    );
    assert.equal((await rpc(server.mcpUrl, 'tasks/result', { taskId: 'tsk_nope' })).body.error.code, -32601);
    assert.equal((await rpc(server.mcpUrl, 'tasks/list', {})).body.error.code, -32601);
  });

  test('bad arguments get a clear tool error and create no task', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ...DEMO, month: '2026-13' }, /month/],
      [{ ...DEMO, offline_rooms: ['studio-z'] }, /Unknown room studio-z/],
      [{ ...DEMO, from: '2026-09-21', to: '2026-09-20' }, /from 2026-09-21 is after to 2026-09-20/],
      [{ ...DEMO, from: '2026-10-01', to: '2026-10-02' }, /outside 2026-09/],
      [{ ...DEMO, offline_rooms: [] }, /at least one room/],
    ];
    const reader = await openTestStore(server.databasePath);
    const sql = await testSql(reader);
    const count = () => sql.value('SELECT count(*) AS n FROM tasks');
    try {
      for (const [args, message] of cases) {
        const before = await count();
        const { body } = await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: args });
        assert.equal(body.result.isError, true, JSON.stringify(args));
        assert.match(body.result.content[0].text, message);
        assert.equal(await count(), before, 'no task row written');
      }
    } finally {
      await reader.close();
    }
  });

  test('after a real reflow list_bookings shows every studio-b booking of the window moved or needing rebooking, none lost or doubled', async () => {
    type B = { id: string; roomId: string; start: string; end: string; status: string };
    const list = async (): Promise<B[]> =>
      (await rpc(server.mcpUrl, 'tools/call', { name: 'list_bookings', arguments: { month: '2026-09' } })).body.result
        .structuredContent.bookings;
    const inWindow = (b: B) =>
      Date.parse(b.start) < Date.parse('2026-09-21T00:00:00+01:00') &&
      Date.parse(b.end) > Date.parse('2026-09-07T00:00:00+01:00');
    const before = await list();
    const affected = before.filter((b) => b.roomId === 'studio-b' && b.status === 'confirmed' && inWindow(b));
    assert.equal(affected.length, 142);
    const created = await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: DEMO });
    const done = await waitForTaskStatus(server.mcpUrl, created.body.result.taskId, ['completed', 'failed']);
    assert.equal(done.status, 'completed');
    const after = await list();
    assert.deepEqual(
      after.map((b) => b.id).sort(),
      before.map((b) => b.id).sort(),
      'same bookings, none lost or duplicated',
    );
    const byId = new Map(after.map((b) => [b.id, b]));
    const moved = new Map(done.result.structuredContent.moves.map((m: { bookingId: string }) => [m.bookingId, m]));
    for (const b of affected) {
      const now = byId.get(b.id)!;
      if (now.status === 'needs_rebooking') continue;
      assert.equal(now.status, 'confirmed');
      assert.ok(moved.has(b.id), `${b.id} is neither moved nor flagged`);
      assert.ok(now.roomId !== 'studio-b' || !inWindow(now), `${b.id} still in studio-b during the window`);
      assert.equal(
        Date.parse(now.end) - Date.parse(now.start),
        Date.parse(b.end) - Date.parse(b.start),
        'duration kept',
      );
    }
    const confirmed = after.filter((b) => b.status === 'confirmed');
    for (const a of confirmed)
      for (const b of confirmed)
        if (a.id < b.id && a.roomId === b.roomId)
          assert.ok(
            Date.parse(a.end) <= Date.parse(b.start) || Date.parse(b.end) <= Date.parse(a.start),
            `${a.id} overlaps ${b.id}`,
          );
    assert.equal(after.filter((b) => b.status === 'needs_rebooking').length, done.result.structuredContent.unresolved);
  });
});
