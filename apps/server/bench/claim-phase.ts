// How soon an idle worker starts a new task: the time from the CreateTaskResult reaching the client
// to the claim the task's history records. Across nodes on PostgreSQL, the creating node has no
// workers (WORKERS=0) and the other, idle, hears of the task by LISTEN/NOTIFY; on SQLite, as a
// reference, one node creates and claims. One task at a time, each solved before the next is
// created, so the claimant is idle at every create.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scenario } from '@reflow/seed';
import { startBenchServer, type BenchDatabase, type BenchServer } from './bench-server.ts';
import { reflowStream } from './reflow-requests.ts';
import { createReflowTask, waitTerminal } from './task-waits.ts';
import { percentile } from './percentile.ts';

export interface ClaimFigures {
  samples: number;
  /** CreateTaskResult received by the client → claim recorded (ms): the figure asked for. */
  fromResult: { p50Ms: number; p99Ms: number; maxMs: number };
  /** Row created → claim recorded, both stamped by the store's own clock: includes the COMMIT. */
  fromRow: { p50Ms: number; p99Ms: number; maxMs: number };
  /** Claims made by the claimant node's process (its instance id ends in its pid): all of them. */
  byClaimant: number;
}

function summary(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 50), p99Ms: percentile(sorted, 99), maxMs: sorted[sorted.length - 1] };
}

/** The operator API's view of one task: when it was created and its first claim, and by whom. */
async function claimOf(baseUrl: string, taskId: string): Promise<{ createdAt: number; at: number; by: string }> {
  const response = await fetch(`${baseUrl}/api/tasks/${taskId}`);
  if (!response.ok) throw new Error(`GET /api/tasks/${taskId}: HTTP ${response.status}`);
  const detail = (await response.json()) as {
    task: { createdAt: string };
    events: { at: string; kind: string; data?: { by?: string } }[];
  };
  const claimed = detail.events.find((e) => e.kind === 'claimed');
  if (!claimed) throw new Error(`task ${taskId} ended with no claim in its history`);
  return { createdAt: Date.parse(detail.task.createdAt), at: Date.parse(claimed.at), by: claimed.data?.by ?? '' };
}

/**
 * Samples for `seconds` (at least `minSamples`). The clocks compared are this machine's: the bench's
 * Date.now() and the store's (PostgreSQL's statement_timestamp(), or the SQLite node's Date.now()),
 * all on one host, so no skew enters the figure.
 */
export async function measureClaimLatency(
  scenario: Scenario,
  database: BenchDatabase,
  options: { seconds: number; minSamples?: number },
): Promise<ClaimFigures> {
  const acrossNodes = database.startsWith('postgres://');
  const servers: BenchServer[] = [];
  try {
    const creator = await startBenchServer(scenario.site, {
      database,
      env: acrossNodes ? { WORKERS: '0' } : {},
    });
    servers.push(creator);
    const claimant = acrossNodes ? await startBenchServer(scenario.site, { database }) : creator;
    if (acrossNodes) servers.push(claimant);
    const next = reflowStream(scenario);
    // One task first, not counted: the claimant's workers and the solver warm up.
    await waitTerminal(claimant.mcpUrl, (await createReflowTask(creator.mcpUrl, next())).taskId, 10);
    const fromResult: number[] = [];
    const fromRow: number[] = [];
    let byClaimant = 0;
    const deadline = Date.now() + options.seconds * 1000;
    while (Date.now() < deadline || fromResult.length < (options.minSamples ?? 20)) {
      // A random pause, so the creates do not fall in step with the nodes' heartbeat or sweep.
      await sleep(20 + Math.random() * 80);
      const { taskId } = await createReflowTask(creator.mcpUrl, next());
      const resultAt = Date.now();
      await waitTerminal(claimant.mcpUrl, taskId, 10);
      const claim = await claimOf(claimant.baseUrl, taskId);
      fromResult.push(claim.at - resultAt);
      fromRow.push(claim.at - claim.createdAt);
      if (claim.by.endsWith(`:${claimant.process.pid}`)) byClaimant++;
    }
    return {
      samples: fromResult.length,
      fromResult: summary(fromResult),
      fromRow: summary(fromRow),
      byClaimant,
    };
  } finally {
    for (const server of servers) await server.stop();
  }
}
