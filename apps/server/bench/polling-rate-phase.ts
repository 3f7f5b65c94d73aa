// What adaptive polling saves: a burst of clients each starts a reflow and polls it to the end,
// once at the server's base interval (ignoring pollIntervalMs) and once as told (pollIntervalMs
// from each answer); and what listening saves: each client holds one subscriptions/listen open
// instead (Task Status Notifications). Counted: the requests spent waiting (tasks/get polls, or
// listens), and how late each client saw its result. A 2025-11-25 client with a session waits on its
// GET stream (notifications/tasks/status) instead; for both pushes, how long each change took to arrive.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scenario } from '@reflow/seed';
import { startBenchServer } from './bench-server.ts';
import { mcpCall } from '../harness/mcp-wire.ts';
import type { ReflowArgs } from './reflow-requests.ts';
import { createReflowTask, listenTerminal, sessionTerminal, waitTerminal } from './task-waits.ts';

export interface PollingRateFigures {
  mode: 'fixed' | 'adaptive' | 'listen' | 'session';
  tasks: number;
  /** Requests spent waiting: tasks/get polls, or subscriptions/listen (one per task). */
  polls: number;
  seconds: number;
  /** How long after a task finished its client saw it (ms): mean and worst. */
  lateMeanMs: number;
  lateMaxMs: number;
  /** Pushing only: from a change's write (its lastUpdatedAt) to its notification's arrival (ms), mean and worst. */
  notifyMeanMs?: number;
  notifyMaxMs?: number;
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
    const notified: number[] = [];
    const onChange = (task: { lastUpdatedAt: string }, at: number) =>
      notified.push(at - Date.parse(task.lastUpdatedAt));
    const started = Date.now();
    await Promise.all(
      burst(scenario, options.clients).map(async (args) => {
        if (mode === 'session') {
          const { task, requests } = await sessionTerminal(server.mcpUrl, args, onChange);
          polls += requests;
          late.push(Date.now() - Date.parse(task.lastUpdatedAt));
          return;
        }
        const created = await createReflowTask(server.mcpUrl, args);
        if (mode === 'listen') {
          polls++;
          const task = await listenTerminal(server.mcpUrl, created.taskId, undefined, onChange);
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
      ...(notified.length
        ? { notifyMeanMs: notified.reduce((a, b) => a + b, 0) / notified.length, notifyMaxMs: Math.max(...notified) }
        : {}),
    };
  } finally {
    await server.stop();
  }
}
