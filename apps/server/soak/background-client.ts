// A host that speaks no task protocol and cannot wait on a long call: reflow_month with
// background:true answers with a task id at once, then reflow_status is called until it ends
// (reflow_cancel now and then).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '@reflow/seed';
import { rpc } from './mcp-wire.ts';
import { randomReflowArgs } from './soak-site.ts';
import { TERMINAL } from './task-ledger.ts';
import { pollDelay, think, trafficOpen, type TrafficContext } from './traffic-context.ts';

const CANCEL_SHARE = 0.1;

export async function runBackgroundClient(ctx: TrafficContext, rng: Rng): Promise<void> {
  while (trafficOpen(ctx)) {
    const args = randomReflowArgs(rng, ctx.site);
    ctx.stats.count('reflow_month (background:true)');
    const started = await rpc(
      ctx.mcpUrl,
      ctx.stats,
      'tools/call',
      { name: 'reflow_month', arguments: { ...args, background: true } },
      { tasks: false, latency: 'background call' },
    );
    const handle = started?.result?.structuredContent?.background;
    if (!handle?.taskId) {
      if (started)
        ctx.stats.error(
          'tools/call background',
          'background call answered without a task id',
          false,
          JSON.stringify(started.error ?? started.result),
        );
      await think(rng, 1_000);
      continue;
    }
    ctx.ledger.received(handle.taskId, 'background', args.dry_run === true);
    await followWithStatusTool(ctx, handle.taskId, handle.pollIntervalMs, rng.chance(CANCEL_SHARE));
    await think(rng, 500);
  }
}

async function followWithStatusTool(
  ctx: TrafficContext,
  taskId: string,
  firstInterval: unknown,
  cancel: boolean,
): Promise<void> {
  const giveUpAt = Date.now() + ctx.taskWaitMs;
  let interval = pollDelay(ctx, firstInterval);
  while (Date.now() < giveUpAt) {
    await sleep(interval);
    if (cancel) {
      cancel = false;
      ctx.stats.count('reflow_cancel');
      const ack = await rpc(
        ctx.mcpUrl,
        ctx.stats,
        'tools/call',
        { name: 'reflow_cancel', arguments: { taskId } },
        { tasks: false },
      );
      if (ack?.error || ack?.result?.isError)
        ctx.stats.error('reflow_cancel', 'reflow_cancel failed', false, JSON.stringify(ack.error ?? ack.result));
    }
    ctx.stats.count('reflow_status');
    const status = await rpc(
      ctx.mcpUrl,
      ctx.stats,
      'tools/call',
      { name: 'reflow_status', arguments: { taskId } },
      { tasks: false, latency: 'reflow_status' },
    );
    const view = status?.result?.structuredContent;
    if (status?.error || status?.result?.isError || !view) {
      if (status)
        ctx.stats.error(
          'reflow_status',
          'reflow_status failed',
          false,
          `${taskId}: ${JSON.stringify(status.error ?? status.result)}`,
        );
      continue;
    }
    if (TERMINAL.includes(view.status)) {
      ctx.ledger.saw(taskId, view.status);
      return;
    }
    interval = pollDelay(ctx, view.pollIntervalMs);
  }
  ctx.stats.error('reflow_status', 'client gave up waiting for its task', false, taskId);
}
