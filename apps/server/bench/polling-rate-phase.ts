// What adaptive polling saves: a burst of clients each starts a reflow and polls it to the end,
// once at the server's base interval (ignoring pollIntervalMs) and once as told (pollIntervalMs
// from each answer). Counted: tasks/get requests, and how late each client saw its result.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scenario } from '@reflow/seed';
import { startBenchServer } from './bench-server.ts';
import { mcpCall } from './mcp-wire.ts';
import type { ReflowArgs } from './reflow-requests.ts';
import { createReflowTask, waitTerminal } from './task-waits.ts';

export interface PollingRateFigures {
  mode: 'fixed' | 'adaptive';
  tasks: number;
  polls: number;
  seconds: number;
  /** How long after a task finished its client saw it (ms): mean and worst. */
  lateMeanMs: number;
  lateMaxMs: number;
}

const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

/** A month-long outage of two rooms at a time: solves long enough that the queue matters. */
function burst(scenario: Scenario, clients: number): ReflowArgs[] {
  const rooms = scenario.site.rooms.map((r) => r.id);
  return Array.from({ length: clients }, (_, i) => ({
    month: scenario.month,
    offline_rooms: [rooms[i % rooms.length]!, rooms[(i + 1 + Math.floor(i / rooms.length)) % rooms.length]!],
    from: `${scenario.month}-01`,
    to: `${scenario.month}-28`,
    dry_run: true,
  }));
}

export async function measurePollingRate(scenario: Scenario, mode: PollingRateFigures['mode'], options: { clients: number; baseMs: number }): Promise<PollingRateFigures> {
  const server = await startBenchServer(scenario.site, { database: 'file', env: { POLL_INTERVAL_MS: String(options.baseMs) } });
  try {
    // Two finished reflows give the server its estimate of how long one takes, as on a server that has been up a while.
    for (const args of burst(scenario, 2)) await waitTerminal(server.mcpUrl, (await createReflowTask(server.mcpUrl, { ...args, to: `${scenario.month}-27` })).taskId);
    let polls = 0;
    const late: number[] = [];
    const started = Date.now();
    await Promise.all(
      burst(scenario, options.clients).map(async (args) => {
        const created = await createReflowTask(server.mcpUrl, args);
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
