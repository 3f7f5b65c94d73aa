// tasks/get throughput through one node, or through two nodes on one shared database: the same
// pollers cycling through the same queued tasks, spread over the nodes (wrk's thread i sends to the
// i-th node), as a load balancer without sticky sessions would. wrk, not autocannon: its own CPU
// would otherwise take the core a second node needs (wrk-load.ts).
import type { Scenario } from '@reflow/seed';
import { startBenchServer, type BenchDatabase, type BenchServer } from './bench-server.ts';
import type { LoadFigures } from './load.ts';
import { runWrk } from './wrk-load.ts';
import { allowedCores } from './allowed-cores.ts';
import { mcpBody, mcpHeaders } from '../harness/mcp-wire.ts';
import { reflowStream } from './reflow-requests.ts';
import { createReflowTask } from './task-waits.ts';

/** The load run before the measured one, on the same nodes. */
const WARM_UP_SECONDS = 2;

/** The batched polls' counters of every node, summed, as their /metrics report them (PostgreSQL). */
async function pollCounters(servers: BenchServer[]): Promise<{ statements: number; polls: number }> {
  const sum = { statements: 0, polls: 0 };
  for (const server of servers) {
    const text = await (await fetch(`${server.baseUrl}/metrics`)).text();
    const value = (name: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${name} `))
          ?.split(' ')[1] ?? 0,
      );
    sum.statements += value('reflow_task_poll_statements_total');
    sum.polls += value('reflow_task_polls_batched_total');
  }
  return sum;
}

/**
 * Accept-only nodes (WORKERS=0), so the polled tasks stay `working` and no solver thread shares the
 * cores with the path measured, each pinned to a core of its own. Two nodes need a database both
 * reach: PostgreSQL.
 */
export async function measureNodesPolling(
  scenario: Scenario,
  database: BenchDatabase,
  nodes: 1 | 2,
  options: { connections: number; seconds: number; pinned?: boolean },
): Promise<LoadFigures> {
  if (nodes === 2 && !database.startsWith('postgres://')) throw new Error('two nodes share only a PostgreSQL database');
  const servers: BenchServer[] = [];
  const cores = allowedCores();
  try {
    // The first node seeds the database; the second finds it seeded. Node i runs on core i only (its
    // event loop and its helper threads), as a node given one core of its own would; PostgreSQL and
    // wrk run wherever the scheduler puts them. `pinned: false`, for reference: the node anywhere.
    for (let i = 0; i < nodes; i++)
      servers.push(
        await startBenchServer(scenario.site, {
          database,
          env: { WORKERS: '0' },
          core: options.pinned === false ? undefined : cores[i % cores.length],
        }),
      );
    const next = reflowStream(scenario);
    const taskIds: string[] = [];
    // Created through every node in turn: any node answers for any task.
    for (let i = 0; i < options.connections; i++)
      taskIds.push((await createReflowTask(servers[i % servers.length].mcpUrl, next())).taskId);
    const load = (durationSeconds: number) =>
      runWrk({
        urls: servers.map((s) => s.mcpUrl),
        connections: options.connections,
        durationSeconds,
        cycle: taskIds.map((taskId) => ({
          headers: mcpHeaders('tasks/get', taskId),
          body: mcpBody('tasks/get', { taskId }),
        })),
        accept: '"status":"working"',
      });
    // Unmeasured first: each node's JIT has compiled the poll's path, and its connections are open.
    await load(WARM_UP_SECONDS);
    const before = await pollCounters(servers);
    const figures = await load(options.seconds);
    const after = await pollCounters(servers);
    const statements = after.statements - before.statements;
    return statements > 0 ? { ...figures, pollsPerStatement: (after.polls - before.polls) / statements } : figures;
  } finally {
    for (const server of servers) await server.stop();
  }
}
