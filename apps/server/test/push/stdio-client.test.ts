// `reflow mcp` as a host runs it: a child process spoken to over stdio by the official SDK Client.
// Nothing but MCP may reach stdout (logs go to stderr), the same tools answer in both eras, and
// the server exits when the host closes stdin.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { createTaskSessionFromClient, resultFromTaskOutcome } from '@modelcontextprotocol/ext-tasks/client';
import { freshTestDatabase } from '../../../../scripts/test-store.mjs';

const root = fileURLToPath(new URL('../../../../', import.meta.url));
const bin = join(root, 'apps/cli/bin/reflow.mjs');

/** `reflow mcp` on a fresh database of this run's store (REFLOW_TEST_STORE): a SQLite file or a PostgreSQL URL. */
function stdioTransport(location: string) {
  const database = /^postgres(ql)?:\/\//.test(location) ? ['--database-url', location] : ['--database', location];
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [bin, 'mcp', ...database, '--workers', '2'],
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', POLL_INTERVAL_MS: '100' },
    cwd: root,
    stderr: 'pipe',
  });
  let logs = '';
  transport.stderr?.on('data', (d) => (logs += d));
  return { transport, logs: () => logs };
}

async function exited(pid: number, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      process.kill(pid, 0);
    } catch {
      return true;
    }
    await sleep(50);
  }
  return false;
}

test('reflow mcp over stdio: a 2025-era client lists tools, reads rooms, gets reflow_month synchronously with progress, and as a 2025-11-25 task', async (t) => {
  const database = await freshTestDatabase();
  t.after(() => database.drop());
  const { transport, logs } = stdioTransport(database.location);
  const client = new Client({ name: 'stdio-host', version: '0.0.0' });
  await client.connect(transport);
  const pid = transport.pid!;
  t.after(() => client.close());

  assert.equal(client.getProtocolEra(), 'legacy');
  const tools = (await client.listTools()).tools.map((x) => x.name).sort();
  assert.deepEqual(tools, [
    'list_bookings',
    'list_rooms',
    'reflow_cancel',
    'reflow_month',
    'reflow_status',
    'revert_reflow',
  ]);
  const rooms = await client.callTool({ name: 'list_rooms', arguments: {} });
  assert.equal((rooms.structuredContent as { rooms: unknown[] }).rooms.length, 9, 'the seeded demo site');

  const progress: string[] = [];
  const result = await client.callTool(
    {
      name: 'reflow_month',
      arguments: { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dry_run: true },
    },
    { onprogress: (p) => void progress.push(String(p.message)) },
  );
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  const sc = result.structuredContent as { affected: number; moved: number; unresolved: number; applied: boolean };
  assert.equal(sc.affected, 142);
  assert.equal(sc.moved + sc.unresolved, 142);
  assert.equal(sc.applied, false);
  assert.ok(progress.length >= 1, 'progress notifications arrived over stdio');
  assert.ok(
    progress.some((m) => /Reflowing 142 bookings|Queued/.test(m)),
    progress.join(' | '),
  );

  // The same connection, through the official ext-tasks client: a 2025-11-25 task over stdio.
  const session = createTaskSessionFromClient(client, { endpointId: 'stdio' });
  const execution = await session.callTool(
    'reflow_month',
    { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-14', to: '2026-09-20', dry_run: true },
    { task: { preference: 'require' } },
  );
  assert.equal(execution.kind, 'task');
  const { outcome } = await execution.settle();
  assert.equal(outcome.status, 'completed');
  const settled = resultFromTaskOutcome(outcome) as unknown as {
    structuredContent: { affected: number; window: { from: string } };
  };
  assert.equal(settled.structuredContent.window.from, '2026-09-14');
  await session.close();

  await client.close();
  assert.ok(await exited(pid), 'the server exits once its stdin closes');
  assert.match(logs(), /"msg":"studio reflow serving MCP over stdio"/, 'logs went to stderr as JSON lines');
});

test('reflow mcp over stdio: a 2026-07-28 client is served by the same tools', async (t) => {
  const database = await freshTestDatabase();
  t.after(() => database.drop());
  const { transport } = stdioTransport(database.location);
  const client = new Client(
    { name: 'stdio-host-modern', version: '0.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(transport);
  t.after(() => client.close());

  assert.equal(client.getProtocolEra(), 'modern');
  assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
  const caps = client.getServerCapabilities() as { extensions?: Record<string, unknown> };
  assert.deepEqual(caps.extensions?.['io.modelcontextprotocol/tasks'], {});
  const bookings = await client.callTool({ name: 'list_bookings', arguments: { month: '2026-09', room: 'studio-b' } });
  assert.ok((bookings.structuredContent as { bookings: unknown[] }).bookings.length > 100);
});
