// A synchronous (non-task) tools/call is cancelled with its request: when the client drops the
// connection mid-solve, the task it started ends cancelled and nothing is applied (2026-07-28
// transports/cancellation: a disconnect MUST be treated as cancellation of that request). A caller
// who wants the work to outlive the connection asks for a task instead.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { mcpHeaders, PROTOCOL_VERSION } from '../../harness/mcp-wire.ts';
import { bookingsSnapshot, startTestServer } from '../helpers/test-server.ts';
import { SLOW_REFLOW, slowMonthSeedFile } from '../helpers/slow-month.ts';

/**
 * Sends a 2026-07-28 tools/call without the Tasks extension and destroys the socket once `ready()`
 * says so (the solve under way: a wait bounded by progress, not a guess a loaded machine breaks).
 */
function callThenHangUp(url: string, meta: Record<string, unknown>, ready: () => Promise<boolean>): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'reflow_month',
      // The slow month: the solve is still running when the client hangs up.
      arguments: SLOW_REFLOW,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
        'io.modelcontextprotocol/clientCapabilities': {},
        ...meta,
      },
    },
  });
  const target = new URL(url);
  return new Promise((resolve) => {
    const req = request({
      hostname: target.hostname,
      port: target.port,
      path: target.pathname,
      method: 'POST',
      headers: { ...mcpHeaders('tools/call', 'reflow_month'), 'content-length': Buffer.byteLength(body) },
    });
    req.on('error', () => {});
    req.on('response', (res) => res.on('error', () => {}).resume());
    req.end(body);
    void (async () => {
      const deadline = Date.now() + 60_000;
      while (!(await ready()) && Date.now() < deadline) await sleep(10);
      req.destroy();
      resolve();
    })();
  });
}

for (const [label, meta] of [
  ['without a progress token', {}],
  ['with a progress token', { progressToken: 'p-1' }],
] as const) {
  test(`a synchronous call whose client disconnects mid-solve is cancelled and applies nothing (${label})`, async (t) => {
    const server = await startTestServer({ SEED_FILE: slowMonthSeedFile() });
    t.after(() => server.close());
    const { store } = server.services;
    const before = await bookingsSnapshot(store);

    // Hang up once the call's task is claimed: its solve is running.
    await callThenHangUp(server.mcpUrl, meta, async () => {
      const newest = (await store.taskList.page({}, 1)).rows.at(0);
      return newest?.claimedBy != null;
    });
    // The newest task: the one the call created.
    const [task] = (await store.taskList.page({}, 1)).rows;
    assert.ok(task, 'the call created a task');
    assert.equal(task.status, 'working', 'the solve was still running when the client hung up');
    const deadline = Date.now() + 60_000;
    let status: string = task.status;
    while (!['completed', 'failed', 'cancelled'].includes(status) && Date.now() < deadline) {
      await sleep(50);
      status = (await store.tasks.get(task.id))!.status;
    }
    assert.equal(status, 'cancelled', 'the disconnect cancelled the task');
    await sleep(300); // an apply that ignored the cancel would now commit
    assert.deepEqual(await store.audit.movesOf(task.id), []);
    assert.equal(await bookingsSnapshot(store), before, 'nothing was applied');
  });
}
