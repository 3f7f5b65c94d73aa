// A 2026-07-28 client that declares the tasks extension, over raw JSON-RPC: reflow_month answers
// at once with a CreateTaskResult; it polls tasks/get at the interval the server hands out until
// the task ends, and now and then cancels its task half way with tasks/cancel.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Rng } from '@reflow/seed';
import { rpc } from './mcp-wire.ts';
import { randomReflowArgs } from './soak-site.ts';
import { TERMINAL } from './task-ledger.ts';
import { pollDelay, think, trafficOpen, type TrafficContext } from './traffic-context.ts';

const CANCEL_SHARE = 0.15;

export async function runRawTaskClient(ctx: TrafficContext, rng: Rng): Promise<void> {
  while (trafficOpen(ctx)) {
    const args = randomReflowArgs(rng, ctx.site);
    ctx.stats.count('reflow_month (tasks, raw)');
    const created = await rpc(
      ctx.mcpUrl,
      ctx.stats,
      'tools/call',
      { name: 'reflow_month', arguments: args },
      { tasks: true, latency: 'create' },
    );
    const task = created?.result;
    if (created?.error || task?.resultType !== 'task' || typeof task.taskId !== 'string') {
      if (created && !created.error)
        ctx.stats.error('tools/call', 'reflow_month answered without a task', false, JSON.stringify(created.result));
      if (created?.error) ctx.stats.error('tools/call', `${created.error.code} ${created.error.message}`, false);
      await think(rng, 1_000);
      continue;
    }
    ctx.ledger.received(task.taskId, 'raw', args.dry_run === true);
    await followTask(ctx, task.taskId, task.pollIntervalMs, rng.chance(CANCEL_SHARE) ? rng.int(50, 3_000) : undefined);
    await think(rng, 500);
  }
}

/** Polls tasks/get until the task ends (or the client gives up), cancelling it after `cancelAfterMs` if given. */
async function followTask(
  ctx: TrafficContext,
  taskId: string,
  firstInterval: unknown,
  cancelAfterMs?: number,
): Promise<void> {
  const started = Date.now();
  const giveUpAt = started + ctx.taskWaitMs;
  let interval = pollDelay(ctx, firstInterval);
  let cancelled = cancelAfterMs === undefined;
  while (Date.now() < giveUpAt) {
    await sleep(cancelled ? interval : Math.min(interval, Math.max(0, started + cancelAfterMs! - Date.now())));
    if (!cancelled && Date.now() >= started + cancelAfterMs!) {
      cancelled = true;
      ctx.stats.count('tasks/cancel (raw)');
      const ack = await rpc(
        ctx.mcpUrl,
        ctx.stats,
        'tasks/cancel',
        { taskId },
        { tasks: true, latency: 'tasks/cancel' },
      );
      if (ack?.error) ctx.stats.error('tasks/cancel', `${ack.error.code} ${ack.error.message}`, false);
    }
    ctx.stats.count('tasks/get (raw)');
    const got = await rpc(ctx.mcpUrl, ctx.stats, 'tasks/get', { taskId }, { tasks: true, latency: 'tasks/get' });
    if (!got) continue;
    if (got.error) {
      const expired = got.error.message === 'Task has expired';
      if (expired) ctx.ledger.expiredBeforeEnd(taskId);
      ctx.stats.error('tasks/get', `${got.error.code} ${got.error.message}`, false, `${taskId}: ${got.error.message}`);
      if (expired) return;
      continue;
    }
    if (TERMINAL.includes(got.result?.status)) {
      ctx.ledger.saw(taskId, got.result.status);
      return;
    }
    interval = pollDelay(ctx, got.result?.pollIntervalMs);
  }
  ctx.stats.error('tasks/get', 'client gave up waiting for its task', false, taskId);
}
