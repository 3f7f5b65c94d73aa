// A client that declares no task protocol: the server waits for the durable task itself and
// answers tools/call with the tool result (or, if an operator cancelled it, a tool error saying so).
import type { Rng } from '@reflow/seed';
import { rpc } from './mcp-wire.ts';
import { randomReflowArgs } from './soak-site.ts';
import { think, trafficOpen, type TrafficContext } from './traffic-context.ts';

export async function runSyncCallClient(ctx: TrafficContext, rng: Rng): Promise<void> {
  while (trafficOpen(ctx)) {
    const args = randomReflowArgs(rng, ctx.site);
    ctx.stats.count('reflow_month (sync, no extension)');
    const answer = await rpc(
      ctx.mcpUrl,
      ctx.stats,
      'tools/call',
      { name: 'reflow_month', arguments: args },
      { tasks: false, latency: 'sync call' },
    );
    if (answer?.error) ctx.stats.error('tools/call sync', `${answer.error.code} ${answer.error.message}`, false);
    else if (answer?.result?.isError) {
      const text: string = answer.result.content?.[0]?.text ?? '';
      // An operator may cancel any working task, this one included: that answer is expected.
      ctx.stats.error(
        'tools/call sync',
        /was cancelled/.test(text) ? 'sync call: task cancelled by the operator' : `sync tool error`,
        /was cancelled/.test(text),
        text,
      );
    } else if (answer?.result?.structuredContent?.affected === undefined) {
      ctx.stats.error(
        'tools/call sync',
        'sync call answered without a reflow result',
        false,
        JSON.stringify(answer?.result ?? null),
      );
    }
    await think(rng, 1_000);
  }
}
