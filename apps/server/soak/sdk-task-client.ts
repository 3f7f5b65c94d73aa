// A client built on the OFFICIAL @modelcontextprotocol/client + @modelcontextprotocol/ext-tasks:
// callTool returns a task handle, settle() polls it to the end; now and then it cancels half way.
// Its HTTP goes through a counting fetch so its statuses land in the same counters.
import type { Rng } from '@reflow/seed';
import { connectExtTasksSession, type ExtTasksConnection } from '../harness/ext-tasks-session.ts';
import { randomReflowArgs } from './soak-site.ts';
import { think, trafficOpen, type TrafficContext } from './traffic-context.ts';
import type { TrafficStats } from './traffic-stats.ts';

const CANCEL_SHARE = 0.15;

export async function runSdkTaskClient(ctx: TrafficContext, rng: Rng): Promise<void> {
  let conn: ExtTasksConnection;
  try {
    conn = await connectExtTasksSession(ctx.mcpUrl, { fetch: countingFetch(ctx.stats) });
  } catch (error) {
    ctx.stats.error('connect', 'official client could not connect', false, String(error));
    return;
  }
  try {
    while (trafficOpen(ctx)) {
      await oneCall(ctx, conn, rng);
      await think(rng, 500);
    }
  } finally {
    await conn.close().catch(() => {});
  }
}

async function oneCall(ctx: TrafficContext, conn: ExtTasksConnection, rng: Rng): Promise<void> {
  const args = randomReflowArgs(rng, ctx.site);
  ctx.stats.count('reflow_month (tasks, official client)');
  const giveUp = AbortSignal.timeout(ctx.taskWaitMs);
  try {
    const execution = await conn.session.callTool('reflow_month', args, { signal: giveUp });
    if (execution.kind !== 'task') {
      ctx.stats.error('tools/call', 'official client: reflow_month answered without a task', false);
      return;
    }
    const taskId = execution.handle.taskId;
    ctx.ledger.received(taskId, 'sdk', args.dry_run === true);
    let cancel: NodeJS.Timeout | undefined;
    if (rng.chance(CANCEL_SHARE)) {
      cancel = setTimeout(
        () => {
          ctx.stats.count('tasks/cancel (official client)');
          execution
            .cancel()
            .catch((error) => ctx.stats.error('tasks/cancel', 'official client cancel failed', false, String(error)));
        },
        rng.int(50, 3_000),
      );
    }
    const { outcome } = await execution.settle({ signal: giveUp });
    clearTimeout(cancel);
    ctx.ledger.saw(taskId, outcome.status);
    if (outcome.status === 'failed') ctx.stats.count('official client: task failed');
  } catch (error) {
    ctx.stats.error(
      'official client',
      giveUp.aborted ? 'official client gave up waiting for its task' : 'official client call failed',
      false,
      describe(error),
    );
  }
}

/** fetch that counts each response's status and times it under the request's Mcp-Method. */
function countingFetch(stats: TrafficStats): typeof fetch {
  return async (input, init) => {
    const method = new Headers(init?.headers).get('mcp-method') ?? init?.method ?? 'GET';
    const started = performance.now();
    try {
      const res = await fetch(input, init);
      stats.status(res.status);
      stats.latency(`sdk ${method}`, performance.now() - started);
      if (method === 'tasks/get') stats.count('tasks/get (official client)');
      return res;
    } catch (error) {
      // The client aborts its own in-flight poll when it cancels or settles: not a failure of the server.
      if (!init?.signal?.aborted) {
        stats.status('network error');
        stats.error(`official client ${method}`, 'network error', false, describe(error));
      }
      throw error;
    }
  };
}

function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: any = error; e && parts.length < 4; e = e.cause) parts.push(`${e.name}: ${e.message}`);
  return parts.join(' <- ');
}
