// A synchronous (non-task) tools/call is cancelled with its request: when the client drops the
// connection mid-solve, the task it started ends cancelled and nothing is applied (2026-07-28
// transports/cancellation: a disconnect MUST be treated as cancellation of that request). A caller
// who wants the work to outlive the connection asks for a task instead.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { generateScenario, renderSiteJson, SCENARIO_SIZES } from '@reflow/seed';
import { mcpHeaders, PROTOCOL_VERSION } from '../harness/mcp-wire.ts';
import { startTestServer } from './helper.ts';

// Large enough that the solve is still running when the client hangs up.
const scenario = generateScenario({ seed: 1, ...SCENARIO_SIZES.medium });
const ARGS = { month: scenario.month, offline_rooms: scenario.offline_rooms, from: scenario.from, to: scenario.to };

/** Sends a 2026-07-28 tools/call without the Tasks extension and destroys the socket after `afterMs`. */
function callThenHangUp(url: string, meta: Record<string, unknown>, afterMs: number): Promise<void> {
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: {
      name: 'reflow_month',
      arguments: ARGS,
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
    setTimeout(() => {
      req.destroy();
      resolve();
    }, afterMs);
  });
}

for (const [label, meta] of [
  ['without a progress token', {}],
  ['with a progress token', { progressToken: 'p-1' }],
] as const) {
  test(`a synchronous call whose client disconnects mid-solve is cancelled and applies nothing (${label})`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'reflow-disconnect-'));
    const seedFile = join(dir, 'site.json');
    writeFileSync(seedFile, renderSiteJson(scenario.site));
    const server = await startTestServer({ SEED_FILE: seedFile });
    t.after(async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    });
    const sqlite = server.services.connection.sqlite;
    const bookings = () =>
      JSON.stringify(sqlite.prepare('SELECT id, room_id, start_at, status, version FROM bookings ORDER BY id').all());
    const before = bookings();

    await callThenHangUp(server.mcpUrl, meta, 250);
    const task = sqlite.prepare('SELECT id, status FROM tasks ORDER BY created_at DESC LIMIT 1').get() as {
      id: string;
      status: string;
    };
    assert.ok(task, 'the call created a task');
    assert.equal(task.status, 'working', 'the solve was still running when the client hung up');
    const deadline = Date.now() + 60_000;
    let status = task.status;
    while (!['completed', 'failed', 'cancelled'].includes(status) && Date.now() < deadline) {
      await sleep(50);
      status = (sqlite.prepare('SELECT status FROM tasks WHERE id = ?').get(task.id) as { status: string }).status;
    }
    assert.equal(status, 'cancelled', 'the disconnect cancelled the task');
    await sleep(300); // an apply that ignored the cancel would now commit
    assert.deepEqual(server.services.queries.audit.movesOf(task.id), []);
    assert.equal(bookings(), before, 'nothing was applied');
  });
}
