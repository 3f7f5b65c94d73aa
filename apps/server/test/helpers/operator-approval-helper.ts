// APPROVAL=operator tests: a client (the agent) and an operator with tokens, the reflow the agent
// asks for, the /api calls the operator makes, and a checksum of every booking to prove a refusal
// changed nothing.
import { createHash } from 'node:crypto';
import { DEMO_SCENARIO } from '@reflow/seed';
import { openTestStore, rpc, waitForTaskStatus } from './test-server.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

export const AGENT = 'agent-token-0123456789abcdef';
export const OPS = 'ops-token-0123456789abcdef';
export const APPROVAL_ENV = { AUTH_TOKENS: `agent:client:${AGENT},ops:operator:${OPS}`, APPROVAL: 'operator' };

export const REFLOW_ARGS = {
  month: DEMO_SCENARIO.month,
  offline_rooms: [...DEMO_SCENARIO.offline_rooms],
  from: DEMO_SCENARIO.from,
  to: DEMO_SCENARIO.to,
};

/** A digest of every booking's room, times, status and version: equal before and after means nothing moved. */
export async function bookingsChecksum(databasePath: string): Promise<string> {
  const store = await openTestStore(databasePath);
  try {
    const all = await store.bookings.overlapping({ from: -8.64e15, to: 8.64e15 });
    const rows = all
      .map((b) => [b.id, b.roomId, b.startAt, b.endAt, b.status, b.version])
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return createHash('sha256').update(JSON.stringify(rows)).digest('hex');
  } finally {
    await store.close();
  }
}

/** reflow_month from `token`'s principal, through the tasks extension; returns the task id. */
export async function startReflowAs(mcpUrl: string, token: string, args: Record<string, unknown> = {}) {
  const { body } = await rpc(
    mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: { ...REFLOW_ARGS, ...args } },
    { token },
  );
  if (body.result?.resultType !== 'task')
    throw new Error(`reflow_month did not return a task: ${JSON.stringify(body)}`);
  return body.result.taskId as string;
}

/** Polls as the agent until the task waits for an operator (working, with that message), or fails. */
export async function waitUntilAwaitingOperator(mcpUrl: string, taskId: string, timeoutMs = 60_000) {
  const deadline = loadAwareDeadline(timeoutMs);
  for (;;) {
    const { body } = await rpc(mcpUrl, 'tasks/get', { taskId }, { token: AGENT });
    const task = body.result;
    if (!task) throw new Error(`tasks/get failed: ${JSON.stringify(body)}`);
    if (task.status === 'working' && /^Waiting for an operator/.test(task.statusMessage ?? '')) return task;
    if (task.status !== 'working')
      throw new Error(`task ended ${task.status} without waiting: ${JSON.stringify(task)}`);
    if (deadline.passed()) throw new Error(`task ${taskId} never waited for an operator`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const waitAsAgent = (mcpUrl: string, taskId: string) =>
  waitForTaskStatus(mcpUrl, taskId, ['completed', 'failed', 'cancelled'], 60_000, { token: AGENT });

/** An /api call as `token` (the operator by default); JSON in and out. */
export async function api(
  baseUrl: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  token = OPS,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
