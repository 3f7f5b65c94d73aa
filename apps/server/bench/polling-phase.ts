// tasks/get under 100 concurrent pollers, next to /healthz on the same server: what the durable
// read path costs against what the HTTP stack itself can do.
import type { Scenario } from '@reflow/seed';
import { startBenchServer } from './bench-server.ts';
import { runLoad, type LoadFigures } from './load.ts';
import { mcpBody, mcpHeaders } from '../harness/mcp-wire.ts';
import { legacyMcpBody, legacyMcpHeaders } from '../harness/mcp-wire-2025.ts';
import { reflowStream } from './reflow-requests.ts';
import { createReflowTask, waitTerminal } from './task-waits.ts';

export interface PollingFigures {
  healthz: LoadFigures;
  working: LoadFigures;
  completed: LoadFigures;
  /** The same polls with MCP_FAST_TASKS_GET=false: every one through a per-request SDK server. */
  workingViaSdk: LoadFigures;
  /** The same polls from a 2025-11-25 client (no Mcp-Method; answered as an SSE event). */
  legacyWorking: LoadFigures;
  /** …and with MCP_FAST_TASKS_GET=false. */
  legacyWorkingViaSdk: LoadFigures;
  /** Size of the completed task's tasks/get answer. */
  completedBytes: number;
  /** Size of a working task's tasks/get answer. */
  workingBytes: number;
}

/**
 * A server with workers solves the scenario's own outage (a large result); then the same files are
 * served by an accept-only process (WORKERS=0), so the tasks polled as `working` stay queued and
 * no solver thread shares the two cores with the path being measured.
 */
export async function measurePolling(
  scenario: Scenario,
  options: { connections: number; seconds: number },
): Promise<PollingFigures> {
  const solver = await startBenchServer(scenario.site, { database: 'file' });
  const { month, offline_rooms, from, to } = scenario;
  const big = await createReflowTask(solver.mcpUrl, { month, offline_rooms, from, to, dry_run: true });
  await waitTerminal(solver.mcpUrl, big.taskId);
  await solver.stop({ keepFiles: true });
  const next = reflowStream(scenario);
  const server = await startBenchServer(scenario.site, { database: 'file', dir: solver.dir, env: { WORKERS: '0' } });
  const working: string[] = [];
  let figures: Omit<PollingFigures, 'workingViaSdk' | 'legacyWorkingViaSdk'>;
  try {
    for (let i = 0; i < options.connections; i++) working.push((await createReflowTask(server.mcpUrl, next())).taskId);
    const load = { url: server.mcpUrl, connections: options.connections, durationSeconds: options.seconds };
    const healthz = await runLoad({ ...load, url: `${server.baseUrl}/healthz`, accept: (b) => b.includes('"ok"') });
    const completedBody = mcpBody('tasks/get', { taskId: big.taskId });
    const completedBytes = (
      await (
        await fetch(server.mcpUrl, {
          method: 'POST',
          headers: mcpHeaders('tasks/get', big.taskId),
          body: completedBody,
        })
      ).text()
    ).length;
    const completed = await runLoad({
      ...load,
      method: 'POST',
      headers: mcpHeaders('tasks/get', big.taskId),
      body: completedBody,
      accept: (b) => b.includes('"status":"completed"'),
    });
    const workingBytes = (
      await (
        await fetch(server.mcpUrl, {
          method: 'POST',
          headers: mcpHeaders('tasks/get', working[0]),
          body: mcpBody('tasks/get', { taskId: working[0] }),
        })
      ).text()
    ).length;
    figures = {
      healthz,
      working: await pollWorking(server.mcpUrl, working, options),
      legacyWorking: await pollWorking(server.mcpUrl, working, options, 'legacy'),
      completed,
      completedBytes,
      workingBytes,
    };
  } finally {
    await server.stop({ keepFiles: true });
  }
  const viaSdk = await startBenchServer(scenario.site, {
    database: 'file',
    dir: solver.dir,
    env: { WORKERS: '0', MCP_FAST_TASKS_GET: 'false' },
  });
  try {
    return {
      ...figures,
      workingViaSdk: await pollWorking(viaSdk.mcpUrl, working, options),
      legacyWorkingViaSdk: await pollWorking(viaSdk.mcpUrl, working, options, 'legacy'),
    };
  } finally {
    await viaSdk.stop();
  }
}

/** A hundred waiting tasks, each poller asking about one after another of them (as a 2026-07-28 or a 2025-11-25 client). */
function pollWorking(
  mcpUrl: string,
  taskIds: string[],
  options: { connections: number; seconds: number },
  wire: 'modern' | 'legacy' = 'modern',
): Promise<LoadFigures> {
  return runLoad({
    url: mcpUrl,
    connections: options.connections,
    durationSeconds: options.seconds,
    method: 'POST',
    cycle: taskIds.map((taskId) =>
      wire === 'legacy'
        ? { headers: legacyMcpHeaders(), body: legacyMcpBody('tasks/get', { taskId }) }
        : { headers: mcpHeaders('tasks/get', taskId), body: mcpBody('tasks/get', { taskId }) },
    ),
    accept: (b) => b.includes('"status":"working"'),
  });
}
