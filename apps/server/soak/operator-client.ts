// The operator at the console: every few seconds lists working tasks over REST and cancels one of
// them with POST /api/tasks/:id/cancel. 409 (it finished first) is the expected race.
import type { Rng } from '@reflow/seed';
import { think, trafficOpen, type TrafficContext } from './traffic-context.ts';

export async function runOperator(ctx: TrafficContext, rng: Rng, everyMs: number): Promise<void> {
  while (trafficOpen(ctx)) {
    await think(rng, 2 * everyMs);
    if (!trafficOpen(ctx)) return;
    const listed = await rest(ctx, 'GET', '/api/tasks?status=working&limit=50', 'operator list');
    const working: { taskId: string }[] = listed?.body?.tasks ?? [];
    if (!working.length) continue;
    const { taskId: id } = rng.pick(working);
    ctx.stats.count('operator cancel (REST)');
    const res = await rest(ctx, 'POST', `/api/tasks/${encodeURIComponent(id)}/cancel`, 'operator cancel');
    if (res?.status === 200) ctx.stats.count('operator cancel: cancelled');
    else if (res?.status === 409) ctx.stats.count('operator cancel: already finished (409)');
  }
}

async function rest(
  ctx: TrafficContext,
  method: string,
  path: string,
  label: string,
): Promise<{ status: number; body: any } | undefined> {
  const started = performance.now();
  try {
    const res = await fetch(`${ctx.baseUrl}${path}`, {
      method,
      headers: method === 'POST' ? { 'content-type': 'application/json' } : {},
      body: method === 'POST' ? '{}' : undefined,
    });
    const text = await res.text();
    ctx.stats.status(res.status);
    ctx.stats.latency(label, performance.now() - started);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    if (res.status !== 200 && res.status !== 409)
      ctx.stats.error(label, `${method} ${path.split('?')[0].replace(/tsk_\w+/, ':id')} → ${res.status}`, false, text);
    return { status: res.status, body };
  } catch (error) {
    ctx.stats.status('network error');
    ctx.stats.error(label, 'network error', false, String(error));
    return undefined;
  }
}
