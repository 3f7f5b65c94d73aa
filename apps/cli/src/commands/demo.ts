import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEMO_SCENARIO } from '@reflow/seed';
import { loadConfig, startServer, type RunningServer } from '@reflow/server-app';
import { McpHttpClient } from '../mcp-http-client.ts';
import { storeEnv, type StoreOptions } from '../store-options.ts';
import { printReflowResult, verifyMonth } from '../print-result.ts';

export interface DemoOptions extends StoreOptions {
  url?: string;
  workers?: number;
}

interface TaskState {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  ttlMs?: number;
  result?: { structuredContent?: unknown };
  error?: { code: number; message: string };
}

/** The whole story on the seeded month: call reflow_month as a task, poll it, print what moved. */
export async function runDemo(options: DemoOptions): Promise<number> {
  let server: RunningServer | undefined;
  let scratch: string | undefined;
  let url = options.url;
  if (!url) {
    // PostgreSQL at --database-url, else the SQLite file named, else a fresh temporary one.
    scratch = options.database || options.databaseUrl ? undefined : mkdtempSync(join(tmpdir(), 'reflow-demo-'));
    const config = loadConfig({
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      ...storeEnv(scratch ? { database: join(scratch, 'reflow.db') } : options),
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
      ...(options.workers ? { WORKERS: String(options.workers) } : {}),
    });
    server = await startServer(config);
    url = `${server.url}/mcp`;
    console.log(`Server on ${url}, database ${server.services.store.location} (seeded with the demo month)`);
  }
  try {
    const client = new McpHttpClient({ url, tasks: true, clientInfo: { name: 'reflow-demo', version: '0.1.0' } });
    const args = {
      month: DEMO_SCENARIO.month,
      offline_rooms: DEMO_SCENARIO.offline_rooms,
      from: DEMO_SCENARIO.from,
      to: DEMO_SCENARIO.to,
    };
    console.log(`\n→ tools/call reflow_month ${JSON.stringify(args)}  (declaring io.modelcontextprotocol/tasks)`);
    const handle = await client.request<TaskState & { resultType: string }>('tools/call', {
      name: 'reflow_month',
      arguments: args,
    });
    if (handle.resultType !== 'task') throw new Error(`Expected a task handle, got ${JSON.stringify(handle)}`);
    const { _meta, content, ...wire } = handle as TaskState & { _meta?: unknown; content?: unknown };
    console.log(`← CreateTaskResult ${JSON.stringify(wire)}\n`);
    let task: TaskState = handle;
    let said = '';
    while (task.status === 'working' || task.status === 'input_required') {
      await sleep(task.pollIntervalMs ?? 1000);
      task = await client.request<TaskState>('tasks/get', { taskId: handle.taskId });
      if (task.statusMessage && task.statusMessage !== said) {
        console.log(`  [${task.status}] ${task.statusMessage}`);
        said = task.statusMessage;
      }
    }
    console.log(`\n← tasks/get: ${task.status}`);
    if (server) await printHistory(server, handle.taskId);
    if (task.status !== 'completed') {
      console.log(task.error ? `  error ${task.error.code}: ${task.error.message}` : '  (no result)');
      return 1;
    }
    printReflowResult(task.result!.structuredContent as never);
    const checks = await verifyMonth(client, DEMO_SCENARIO, task.result!.structuredContent as never);
    for (const line of checks.lines) console.log(line);
    return checks.ok ? 0 : 1;
  } finally {
    await server?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The solve is faster than one poll, so the polls above rarely catch it mid-way. With the server
 * in-process the demo can show what the task recorded meanwhile: its progress history.
 */
async function printHistory(server: RunningServer, taskId: string): Promise<void> {
  const events = await server.services.store.tasks.events(taskId);
  if (events.length === 0) return;
  const t0 = events[0].at;
  const line = (e: (typeof events)[number]) =>
    `  +${String(e.at - t0).padStart(4)} ms  ${e.kind.padEnd(9)} ${e.message}`;
  console.log(`\nProgress history recorded in task_events (${events.length} events):`);
  const shown = events.length <= 10 ? events : [...events.slice(0, 4), undefined, ...events.slice(-4)];
  for (const e of shown) console.log(e ? line(e) : `  … ${events.length - 8} more progress events …`);
}
