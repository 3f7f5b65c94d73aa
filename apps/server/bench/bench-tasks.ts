// npm run bench:tasks [-- --seconds 10 --pollers 100 --creators 10 --burst 40 --base-ms 250]
// The task surface against its own ceiling, in one run, on this machine: tasks/get next to
// /healthz on the same server; CreateTaskResult latency on a durable file (FULL, NORMAL) next to
// :memory:; and the requests adaptive polling saves. Each figure comes from its own server process.
import Table from 'cli-table3';
import { Command } from 'commander';
import { generateScenario, SCENARIO_SIZES } from '@reflow/seed';
import { measureCreate, STORAGE_SETUPS } from './create-phase.ts';
import type { LoadFigures } from './load.ts';
import { measurePolling } from './polling-phase.ts';
import { measurePollingRate } from './polling-rate-phase.ts';

const program = new Command()
  .option('--seconds <n>', 'length of each load run', '10')
  .option('--pollers <n>', 'concurrent tasks/get pollers', '100')
  .option('--creators <n>', 'concurrent reflow_month callers', '10')
  .option('--burst <n>', 'clients starting a reflow at once, for the polling-rate comparison', '40')
  .option('--base-ms <n>', 'POLL_INTERVAL_MS for the polling-rate comparison', '250')
  .parse();
const opts = program.opts<{ seconds: string; pollers: string; creators: string; burst: string; baseMs: string }>();
const seconds = Number(opts.seconds);
const pollers = Number(opts.pollers);
const creators = Number(opts.creators);
const burstClients = Number(opts.burst);
const baseMs = Number(opts.baseMs);
for (const [name, value] of [['--seconds', seconds], ['--pollers', pollers], ['--creators', creators], ['--burst', burstClients], ['--base-ms', baseMs]] as const) {
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number ≥ 1`);
    process.exit(2);
  }
}

const scenario = generateScenario({ seed: 1, ...SCENARIO_SIZES.medium });
const row = (label: string, f: LoadFigures, extra = '') => [label, Math.round(f.perSecond).toLocaleString('en'), f.p50Ms.toFixed(1), f.p99Ms.toFixed(1), f.failed, extra];
const head = ['', 'req/s', 'p50 ms', 'p99 ms', 'failed', 'vs baseline'];
const pct = (a: number, b: number) => `${Math.round((100 * a) / b)} %`;

process.stderr.write(`polling: ${pollers} pollers × ${seconds} s per route…\n`);
const polling = await measurePolling(scenario, { connections: pollers, seconds });
const pollTable = new Table({ head, style: { head: [], border: [] } });
pollTable.push(
  row('GET /healthz (baseline)', polling.healthz),
  row('tasks/get, task working', polling.working, pct(polling.working.perSecond, polling.healthz.perSecond)),
  row('  same, every poll through the SDK (MCP_FAST_TASKS_GET=false)', polling.workingViaSdk, pct(polling.workingViaSdk.perSecond, polling.healthz.perSecond)),
  row(`tasks/get, task completed (${Math.round(polling.completedBytes / 1024)} KiB result)`, polling.completed, pct(polling.completed.perSecond, polling.healthz.perSecond)),
);
console.log(`\ntasks/get with ${pollers} concurrent pollers (accept-only server, WORKERS=0)\n${pollTable.toString()}`);

const created: LoadFigures[] = [];
for (const setup of STORAGE_SETUPS) {
  process.stderr.write(`create: ${setup.label}, ${creators} callers × ${seconds} s…\n`);
  created.push(await measureCreate(scenario, setup, { connections: creators, seconds }));
}
const memory = created[STORAGE_SETUPS.findIndex((s) => s.database === ':memory:')]!;
const createTable = new Table({ head: [...head.slice(0, 5), 'p99 vs :memory:'], style: { head: [], border: [] } });
STORAGE_SETUPS.forEach((setup, i) => createTable.push(row(setup.label, created[i]!, `${(created[i]!.p99Ms / memory.p99Ms).toFixed(2)}×`)));
console.log(`\nreflow_month → CreateTaskResult, ${creators} concurrent callers, both workers busy\n${createTable.toString()}`);

process.stderr.write(`polling rate: ${burstClients} clients, fixed then adaptive…\n`);
const rates = [await measurePollingRate(scenario, 'fixed', { clients: burstClients, baseMs }), await measurePollingRate(scenario, 'adaptive', { clients: burstClients, baseMs })];
const rateTable = new Table({ head: ['client polls', 'tasks', 'tasks/get requests', 'per task', 'req/s', 'saw result late: mean', 'max', 'all done in'], style: { head: [], border: [] } });
for (const r of rates)
  rateTable.push([
    r.mode === 'fixed' ? `every ${baseMs} ms (ignores pollIntervalMs)` : 'as told (pollIntervalMs)',
    r.tasks,
    r.polls,
    (r.polls / r.tasks).toFixed(1),
    (r.polls / r.seconds).toFixed(1),
    `${Math.round(r.lateMeanMs)} ms`,
    `${Math.round(r.lateMaxMs)} ms`,
    `${r.seconds.toFixed(1)} s`,
  ]);
const saved = 1 - rates[1]!.polls / rates[0]!.polls;
console.log(`\nAdaptive polling: ${burstClients} clients start a month-long reflow at once (WORKERS=2, POLL_INTERVAL_MS=${baseMs})\n${rateTable.toString()}`);
console.log(`adaptive polling saved ${Math.round(100 * saved)} % of tasks/get requests`);

const ratio = polling.working.perSecond / polling.healthz.perSecond;
const durable = created[0]!.p99Ms / memory.p99Ms;
const verdicts = [
  [`tasks/get throughput ${pct(polling.working.perSecond, polling.healthz.perSecond)} of /healthz`, ratio >= 0.5, '≥ 50 %'],
  [`durable create p99 ${durable.toFixed(2)}× :memory:`, durable <= 2, '≤ 2×'],
] as const;
console.log('');
for (const [text, ok, target] of verdicts) console.log(`${ok ? '✓' : '✗'} ${text} (target ${target})`);
const failures = [polling.healthz, polling.working, polling.workingViaSdk, polling.completed, ...created].reduce((n, f) => n + f.failed, 0);
if (failures) console.log(`✗ ${failures} request(s) failed`);
process.exit(verdicts.every(([, ok]) => ok) && !failures ? 0 : 1);
