// Starting a reflow and following it to the end, as a polling client does, for the bench's set-up.
import { setTimeout as sleep } from 'node:timers/promises';
import { RawLegacySession } from '../harness/legacy-session.ts';
import { mcpBody, mcpCall, mcpHeaders } from '../harness/mcp-wire.ts';
import type { ReflowArgs } from './reflow-requests.ts';

/** tools/call reflow_month from a client that declares the tasks extension: the CreateTaskResult. */
export async function createReflowTask(
  mcpUrl: string,
  args: ReflowArgs,
): Promise<{ taskId: string; pollIntervalMs: number }> {
  const created = await mcpCall(mcpUrl, 'tools/call', { name: 'reflow_month', arguments: args }, 'reflow_month');
  if (created.resultType !== 'task')
    throw new Error(`expected a task handle, got ${JSON.stringify(created).slice(0, 300)}`);
  return created;
}

/** Polls tasks/get every `everyMs` until the task is terminal, bounded by `timeoutMs`. */
export async function waitTerminal(mcpUrl: string, taskId: string, everyMs = 100, timeoutMs = 120_000): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const task = await mcpCall(mcpUrl, 'tasks/get', { taskId }, taskId);
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    if (Date.now() > deadline) throw new Error(`task ${taskId} still ${task.status} after ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}

/**
 * Follows a task by subscriptions/listen instead (Task Status Notifications): one request, held
 * open until the terminal notification arrives. Resolves with that notification's task.
 */
export async function listenTerminal(
  mcpUrl: string,
  taskId: string,
  timeoutMs = 900_000,
  /** Told of each change notified after the stream opened, with its arrival time. */
  onChange?: (task: any, at: number) => void,
): Promise<any> {
  const abort = new AbortController();
  const timer = setTimeout(
    () => abort.abort(new Error(`no terminal notification for ${taskId} in ${timeoutMs} ms`)),
    timeoutMs,
  );
  try {
    const response = await fetch(mcpUrl, {
      method: 'POST',
      signal: abort.signal,
      headers: mcpHeaders('subscriptions/listen'),
      body: mcpBody('subscriptions/listen', { notifications: { taskIds: [taskId] } }),
    });
    const decoder = new TextDecoder();
    let buffer = '';
    let seen = 0;
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += decoder.decode(chunk, { stream: true });
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const data = buffer
          .slice(0, cut)
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => l.slice(5))
          .join('\n');
        buffer = buffer.slice(cut + 2);
        const message = data ? JSON.parse(data) : undefined;
        if (message?.method === 'notifications/tasks') {
          // The first is where the task stood when the stream opened, not a change.
          if (seen++ > 0) onChange?.(message.params, Date.now());
        }
        if (
          message?.method === 'notifications/subscriptions/acknowledged' &&
          !message.params.notifications.taskIds.includes(taskId)
        )
          throw new Error(`listen for ${taskId} not acknowledged`);
        if (
          message?.method === 'notifications/tasks' &&
          ['completed', 'failed', 'cancelled'].includes(message.params.status)
        )
          return message.params;
      }
    }
    throw new Error(`the listen stream for ${taskId} ended first`);
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}

/**
 * A 2025-11-25 client with a session instead: initialize (Mcp-Session-Id), the GET stream, the
 * create through the session, then notifications/tasks/status until the terminal one; DELETE.
 * Resolves with the terminal task and the requests spent beside the create.
 */
export async function sessionTerminal(
  mcpUrl: string,
  args: ReflowArgs,
  onChange: (task: any, at: number) => void,
  timeoutMs = 900_000,
): Promise<{ task: any; requests: number }> {
  const session = new RawLegacySession(mcpUrl);
  await session.open(); // initialize + notifications/initialized
  const stream = await session.stream();
  try {
    const created = await session.post('tools/call', { name: 'reflow_month', arguments: args, task: {} });
    const taskId = created.body?.result?.task?.taskId as string | undefined;
    if (!taskId) throw new Error(`expected a 2025-11-25 task, got ${JSON.stringify(created.body).slice(0, 300)}`);
    const done = await stream.until(
      (m) =>
        m.method === 'notifications/tasks/status' &&
        m.params.taskId === taskId &&
        ['completed', 'failed', 'cancelled'].includes(m.params.status),
      timeoutMs,
    );
    for (const e of stream.events)
      if (e.message.method === 'notifications/tasks/status' && e.message.params.taskId === taskId)
        onChange(e.message.params, e.at);
    return { task: done.params, requests: 4 }; // initialize, initialized, GET, DELETE
  } finally {
    stream.close();
    await session.delete();
  }
}
