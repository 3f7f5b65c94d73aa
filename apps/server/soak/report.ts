// The one-screen report: configuration, traffic, outcomes, latencies, growth, and the checks.
import type { CheckResult } from './check-result.ts';
import { MB } from './resource-checks.ts';
import type { Sample } from './sampler.ts';
import type { TrafficStats } from './traffic-stats.ts';

export interface ReportData {
  config: string[];
  stats: TrafficStats;
  tasksReceived: number;
  dedupeHits: number;
  byStatus: Map<string, number>;
  bookings: string;
  samples: Sample[];
  server: string;
  rssSlopeMbPerMin: number;
  checks: CheckResult[];
  serverExit?: string;
}

export function formatReport(d: ReportData): string {
  const s = d.stats;
  const lines = [...d.config];
  lines.push(`Traffic: ${list(d.stats.counts, 3)}`);
  lines.push(`HTTP statuses: ${list(s.statuses)}`);
  lines.push(`Expected errors: ${list(s.expectedErrors) || 'none'}`);
  lines.push(`Unexpected errors: ${list(s.unexpectedErrors) || 'none'}`);
  lines.push(
    `Tasks: ${d.tasksReceived} ids received by clients (${d.dedupeHits} dedupe hits); rows at the end: ${list(d.byStatus)}`,
  );
  lines.push(`Bookings: ${d.bookings}`);
  const lat = (kind: string, label = kind) => {
    const p50 = s.percentile(kind, 50);
    return p50 === undefined ? undefined : `${label} ${p50.toFixed(1)}/${s.percentile(kind, 99)!.toFixed(1)}`;
  };
  lines.push(
    `Latency ms p50/p99 (clients): ${[lat('create'), lat('tasks/get'), lat('sdk tools/call', 'official create'), lat('sdk tasks/get', 'official tasks/get'), lat('reflow_status'), lat('background call', 'background create'), lat('sync call')].filter(Boolean).join(', ')}`,
  );
  const span = (label: string, value: (x: Sample) => number, digits = 0) => {
    const values = d.samples.map((x) => value(x));
    if (!values.length) return `${label} -`;
    return `${label} ${values[0].toFixed(digits)}→${Math.max(...values).toFixed(digits)}→${values.at(-1)!.toFixed(digits)}`;
  };
  lines.push(
    `Start→max→end: ${span('RSS MB', (x) => x.rssMb)} (slope ${d.rssSlopeMbPerMin.toFixed(2)} MB/min), ${span('main heap MB', (x) => x.heapMb ?? 0)}, ${span('WAL MB', (x) => x.wal.bytes / MB, 1)}, ${span('DB MB', (x) => x.dbBytes / MB, 1)},
  ${span('tasks rows', (x) => x.tasks)}, ${span('tombstones', (x) => x.expired)}, ${span('queue', (x) => x.queued)}`,
  );
  lines.push(d.server);
  lines.push(`Samples: ${d.samples.length}${d.serverExit ? `; server ended with ${d.serverExit} after SIGTERM` : ''}`);
  lines.push('Checks:');
  for (const c of d.checks) lines.push(`  ${c.pass ? 'PASS' : 'FAIL'} ${c.name}: ${c.detail}`);
  const failed = d.checks.filter((c) => !c.pass).length;
  lines.push(
    failed
      ? `RESULT: FAIL (${failed} of ${d.checks.length} checks failed)`
      : `RESULT: PASS (${d.checks.length} checks)`,
  );
  return lines.join('\n');
}

/** `a 3, b 2` in insertion order; with `perLine`, wrapped onto indented lines of that many items. */
function list(map: Map<string, number>, perLine?: number): string {
  const items = [...map].map(([k, n]) => `${k} ${n}`);
  if (!perLine) return items.join(', ');
  const rows: string[] = [];
  for (let i = 0; i < items.length; i += perLine) rows.push(items.slice(i, i + perLine).join(', '));
  return rows.join(',\n  ');
}
