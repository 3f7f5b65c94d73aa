// What the clients saw: no 5xx (or dropped connection), and no JSON-RPC or tool error a correct
// server would not give.
import { check, type CheckResult } from './check-result.ts';
import type { TrafficStats } from './traffic-stats.ts';

/** `serverCounted5xx`: the 5xx the server's own request counter saw (GET /metrics). */
export function checkTraffic(stats: TrafficStats, serverCounted5xx: number): CheckResult[] {
  const unexpected = [...stats.unexpectedErrors].map(([k, n]) => `${k} ×${n}`);
  return [
    check(
      'no 5xx',
      stats.serverErrors() === 0 && serverCounted5xx === 0,
      `${stats.serverErrors()} responses 5xx or dropped as clients saw them; ${serverCounted5xx} 5xx in the server's own count`,
    ),
    check(
      'no unexpected JSON-RPC/tool errors',
      unexpected.length === 0,
      unexpected.length
        ? `${unexpected.slice(0, 3).join('; ')}${stats.samples[0] ? ` — e.g. ${stats.samples[0].what}: ${stats.samples[0].detail}` : ''}`
        : 'none',
    ),
  ];
}
