// Helpers for the operator tests: start the demo reflow over MCP, call /api as the page does.
import { DEMO_SCENARIO } from '@reflow/seed';
import { testSql } from '../../../../scripts/test-sql.mjs';
import { openTestStore, rpc, waitForTaskStatus } from './test-server.ts';

export async function getJson(url: string, init?: RequestInit): Promise<{ status: number; body: any }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.json() };
}

/** tools/call reflow_month from a client that declares the tasks extension; returns the task id. */
export async function startReflow(mcpUrl: string, args: Record<string, unknown> = {}): Promise<string> {
  const { body } = await rpc(mcpUrl, 'tools/call', {
    name: 'reflow_month',
    arguments: {
      month: DEMO_SCENARIO.month,
      offline_rooms: [...DEMO_SCENARIO.offline_rooms],
      from: DEMO_SCENARIO.from,
      to: DEMO_SCENARIO.to,
      ...args,
    },
  });
  if (body.error || body.result?.resultType !== 'task')
    throw new Error(`reflow_month did not return a task: ${JSON.stringify(body)}`);
  return body.result.taskId;
}

/** The demo: the seeded scenario, run to its end. */
export async function runDemoReflow(mcpUrl: string): Promise<{ taskId: string; task: any }> {
  const taskId = await startReflow(mcpUrl);
  const task = await waitForTaskStatus(mcpUrl, taskId, ['completed', 'failed', 'cancelled']);
  return { taskId, task };
}

/**
 * One SQL write behind the server's back, on a connection of its own, as another process editing
 * the data would (plain SQL with `?` placeholders, the same on both stores); returns the rows changed.
 */
export async function writeBehindTheServer(databasePath: string, text: string, ...params: unknown[]): Promise<number> {
  const store = await openTestStore(databasePath);
  try {
    return await (await testSql(store)).run(text, ...params);
  } finally {
    await store.close();
  }
}
