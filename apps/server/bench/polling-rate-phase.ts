// What adaptive polling saves: a burst of clients each starts a reflow and polls it to the end,
// once at the server's base interval (ignoring pollIntervalMs) and once as told (pollIntervalMs
// from each answer); and what listening saves: each client holds one subscriptions/listen open
// instead (Task Status Notifications). Counted: the requests spent waiting (tasks/get polls, or
// listens), and how late each client saw its result.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scenario } from '@reflow/seed';
import { startBenchServer } from './bench-server.ts';
import { mcpCall } from '../harness/mcp-wire.ts';
import type { ReflowArgs } from './reflow-requests.ts';
import { createReflowTask, listenTerminal, waitTerminal } from './task-waits.ts';

export interface PollingRateFigures {
  mode: 'fixed' | 'adaptive' | 'listen';
  tasks: number;
  /** Requests spent waiting: tasks/get polls, or subscriptions/listen (one per task). */
  polls: number;
  seconds: number;
  /** How long after a task finished its client saw it (ms): mean and worst. */
  lateMeanMs: number;
  lateMaxMs: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/**
 * The scenario's own outage less one room (a different one each time, then one day shorter):
 * distinct requests, each a solve of seconds, so the queue is what the clients wait on.
 */
function burst(scenario: Scenario, clients: number): ReflowArgs[] {
  const rooms = scenario.offline_rooms;
  const lastDay = Number(scenario.to.slice(8));
  return Array.from({ length: clients }, (_, i) => ({
    month: scenario.month,
    offline_rooms: rooms.filter((_, r) => r !== i % rooms.length),
    from: scenario.from,
    to: `${scenario.month}-${String(lastDay - Math.floor(i / rooms.length)).padStart(2, '0')}`,
    dry_run: true,
  }));
}

export async function measurePollingRate(
  scenario: Scenario,
  mode: PollingRateFigures['mode'],
  options: { clients: number; baseMs: number },
): Promise<PollingRateFigures> {
  const server = await startBenchServer(scenario.site, {
    database: 'file',
    env: { POLL_INTERVAL_MS: String(options.baseMs) },
  });
  try {
    // Two finished reflows (one per worker) give the server its estimate of how long one takes, as on a server that has been up a while.
    const warmUp = { month: scenario.month, offline_rooms: scenario.offline_rooms, from: scenario.from, dry_run: true };
    await Promise.all(
      ['-20', '-21'].map(async (day) =>
        waitTerminal(
          server.mcpUrl,
          (await createReflowTask(server.mcpUrl, { ...warmUp, to: `${scenario.month}${day}` })).taskId,
        ),
      ),
    );
    let polls = 0;
    const late: number[] = [];
    const started = Date.now();
    await Promise.all(
      burst(scenario, options.clients).map(async (args) => {
        const created = await createReflowTask(server.mcpUrl, args);
        if (mode === 'listen') {
          polls++;
          const task = await listenTerminal(server.mcpUrl, created.taskId);
          late.push(Date.now() - Date.parse(task.lastUpdatedAt));
          return;
        }
        let wait = mode === 'adaptive' ? created.pollIntervalMs : options.baseMs;
        for (;;) {
          await sleep(wait);
          polls++;
          const task = await mcpCall(server.mcpUrl, 'tasks/get', { taskId: created.taskId }, created.taskId);
          if (TERMINAL.has(task.status)) {
            late.push(Date.now() - Date.parse(task.lastUpdatedAt));
            return;
          }
          wait = mode === 'adaptive' ? task.pollIntervalMs : options.baseMs;
        }
      }),
    );
    return {
      mode,
      tasks: options.clients,
      polls,
      seconds: (Date.now() - started) / 1000,
      lateMeanMs: late.reduce((a, b) => a + b, 0) / late.length,
      lateMaxMs: Math.max(...late),
    };
  } finally {
    await server.stop();
  }
}
