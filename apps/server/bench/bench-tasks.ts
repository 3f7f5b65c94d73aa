// npm run bench:tasks [-- --seconds 10 --pollers 100 --creators 10 --burst 20 --base-ms 1000]
// The task surface against its own ceiling, in one run, on this machine: tasks/get next to
// /healthz on the same server; CreateTaskResult latency on a durable file (FULL, NORMAL) next to
// :memory:; the requests adaptive polling saves; and ours next to the official TS SDK 1.x server
// (peer-phase.ts). Each figure comes from its own server process.
// --store postgres|both: the stores side by side instead (store-comparison.ts).
import Table from 'cli-table3';
import { Command } from 'commander';
import { generateScenario, SCENARIO_SIZES } from '@reflow/seed';
import { measureCreate, STORAGE_SETUPS } from './create-phase.ts';
import type { LoadFigures } from './load.ts';
import { measureCeiling } from './ceiling-phase.ts';
import { measurePolling } from './polling-phase.ts';
import { measurePollingRate } from './polling-rate-phase.ts';
import { compareStores, STORE_PHASES } from './store-comparison.ts';
import { measurePeer, peerFailures, peerReport } from './peer-phase.ts';

const program = new Command()
  .option('--seconds <n>', 'length of each load run', '10')
  .option('--pollers <n>', 'concurrent tasks/get pollers (100; 50 with --store postgres|both)')
  .option('--creators <n>', 'concurrent reflow_month callers', '10')
  .option('--burst <n>', 'clients starting a reflow at once, for the polling-rate comparison', '20')
  .option('--base-ms <n>', 'POLL_INTERVAL_MS for the polling-rate comparison', '1000')
  .option(
    '--store <store>',
    'sqlite: the phases below; postgres or both: durable create, tasks/get through one and two nodes, create → claim across nodes',
    'sqlite',
  )
  .option(
    '--postgres-url <url>',
    'with --store postgres|both: a durable PostgreSQL of your own (else the bench starts one)',
  )
  .option(
    '--only <phases>',
    'comma-separated: get, create, rate, listen, peer (sqlite); create, get, backlog, claim (postgres, both)',
  )
  .parse();
const opts = program.opts<{
  seconds: string;
  pollers?: string;
  creators: string;
  burst: string;
  baseMs: string;
  store: string;
  postgresUrl?: string;
  only?: string;
}>();
const SQLITE_PHASES = ['get', 'create', 'rate', 'listen', 'peer'];
if (!['sqlite', 'postgres', 'both'].includes(opts.store)) {
  console.error('--store must be sqlite, postgres or both');
  process.exit(2);
}
const known: readonly string[] = opts.store === 'sqlite' ? SQLITE_PHASES : STORE_PHASES;
const phases = new Set((opts.only ?? known.join(',')).split(',').map((p) => p.trim()));
for (const phase of phases)
  if (!known.includes(phase)) {
    console.error(`--only: no phase "${phase}" with --store ${opts.store} (phases: ${known.join(', ')})`);
    process.exit(2);
  }
if (opts.postgresUrl && opts.store === 'sqlite') {
  console.error('--postgres-url needs --store postgres or both');
  process.exit(2);
}
const seconds = Number(opts.seconds);
const pollers = Number(opts.pollers ?? (opts.store === 'sqlite' ? 100 : 50));
const creators = Number(opts.creators);
const burstClients = Number(opts.burst);
const baseMs = Number(opts.baseMs);
for (const [name, value] of [
  ['--seconds', seconds],
  ['--pollers', pollers],
  ['--creators', creators],
  ['--burst', burstClients],
  ['--base-ms', baseMs],
] as const) {
  if (!Number.isInteger(value) || value < 1) {
    console.error(`${name} must be a whole number ≥ 1`);
    process.exit(2);
  }
}

const scenario = generateScenario({ seed: 1, ...SCENARIO_SIZES.medium });
const row = (label: string, f: LoadFigures, extra = '') => [
  label,
  Math.round(f.perSecond).toLocaleString('en'),
  f.p50Ms.toFixed(1),
  f.p99Ms.toFixed(1),
  f.failed,
  extra,
];
const head = ['', 'req/s', 'p50 ms', 'p99 ms', 'failed', 'vs baseline'];
const pct = (a: number, b: number) => `${Math.round((100 * a) / b)} %`;

type Verdict = { text: string; ok: boolean; target: string };
const verdicts: Verdict[] = [];
let failures = 0;

if (opts.store !== 'sqlite') {
  const compared = await compareStores(scenario, {
    stores: opts.store === 'both' ? ['sqlite', 'postgres'] : ['postgres'],
    phases,
    seconds,
    pollers,
    creators,
    postgresUrl: opts.postgresUrl,
  }).catch((error: Error) => {
    // A server that is missing, unreachable or not durable: the reason, not a stack.
    console.error(`bench:tasks --store ${opts.store}: ${error.message}`);
    process.exit(1);
  });
  console.log('');
  for (const note of compared.notes) console.log(note);
  verdicts.push(...compared.verdicts);
  failures += compared.failures;
  // The SQLite-only phases below do not run.
  phases.clear();
}

if (phases.has('get')) {
  process.stderr.write(`polling: ${pollers} pollers × ${seconds} s per route…\n`);
  const polling = await measurePolling(scenario, { connections: pollers, seconds });
  const table = new Table({ head, style: { head: [], border: [] } });
  table.push(
    row('GET /healthz (baseline)', polling.healthz),
    row('tasks/get, task working', polling.working, pct(polling.working.perSecond, polling.healthz.perSecond)),
    row(
      '  same, every poll through the SDK (MCP_FAST_TASKS_GET=false)',
      polling.workingViaSdk,
      pct(polling.workingViaSdk.perSecond, polling.healthz.perSecond),
    ),
    row(
      'tasks/get 2025-11-25, task working',
      polling.legacyWorking,
      pct(polling.legacyWorking.perSecond, polling.healthz.perSecond),
    ),
    row(
      '  same, every poll through the SDK (MCP_FAST_TASKS_GET=false)',
      polling.legacyWorkingViaSdk,
      pct(polling.legacyWorkingViaSdk.perSecond, polling.healthz.perSecond),
    ),
    row(
      `tasks/get, task completed (${Math.round(polling.completedBytes / 1024)} KiB result)`,
      polling.completed,
      pct(polling.completed.perSecond, polling.healthz.perSecond),
    ),
  );
  console.log(`\ntasks/get with ${pollers} concurrent pollers (accept-only server, WORKERS=0)\n${table.toString()}`);
  process.stderr.write(`ceiling: bare Fastify, ${pollers} connections × ${seconds} s per request…\n`);
  const ceiling = await measureCeiling({ connections: pollers, seconds, answerBytes: polling.workingBytes });
  const bare = new Table({ head, style: { head: [], border: [] } });
  bare.push(
    row('GET /healthz', ceiling.healthz),
    row(
      `the same tasks/get POST, body parsed, a constant ${polling.workingBytes}-byte answer`,
      ceiling.poll,
      pct(ceiling.poll.perSecond, ceiling.healthz.perSecond),
    ),
  );
  console.log(
    `The framework's own ceiling: bare Fastify (no logger, hooks or database), same load\n${bare.toString()}`,
  );
  const ratio = polling.working.perSecond / polling.healthz.perSecond;
  verdicts.push({
    text: `tasks/get throughput ${pct(polling.working.perSecond, polling.healthz.perSecond)} of /healthz (bare Fastify answering the same POST with a constant: ${pct(ceiling.poll.perSecond, ceiling.healthz.perSecond)})`,
    ok: ratio >= 0.5,
    target: '≥ 50 %',
  });
  failures += ceiling.healthz.failed + ceiling.poll.failed;
  failures += [
    polling.healthz,
    polling.working,
    polling.workingViaSdk,
    polling.legacyWorking,
    polling.legacyWorkingViaSdk,
    polling.completed,
  ].reduce((n, f) => n + f.failed, 0);
}

if (phases.has('create')) {
  const created: LoadFigures[] = [];
  for (const setup of STORAGE_SETUPS) {
    process.stderr.write(`create: ${setup.label}, ${creators} callers × ${seconds} s…\n`);
    created.push(await measureCreate(scenario, setup, { connections: creators, seconds }));
  }
  const memory = created[STORAGE_SETUPS.findIndex((s) => s.database === ':memory:')];
  const table = new Table({ head: [...head.slice(0, 5), 'p99 vs :memory:'], style: { head: [], border: [] } });
  STORAGE_SETUPS.forEach((setup, i) =>
    table.push(row(setup.label, created[i], `${(created[i].p99Ms / memory.p99Ms).toFixed(2)}×`)),
  );
  console.log(
    `\nreflow_month → CreateTaskResult, ${creators} concurrent callers, both workers busy\n${table.toString()}`,
  );
  const durable = created[0].p99Ms / memory.p99Ms;
  verdicts.push({ text: `durable create p99 ${durable.toFixed(2)}× :memory:`, ok: durable <= 2, target: '≤ 2×' });
  failures += created.reduce((n, f) => n + f.failed, 0);
}

if (phases.has('rate')) {
  process.stderr.write(`polling rate: ${burstClients} clients, fixed then adaptive…\n`);
  // Solves of seconds (the 40-room site), so that waiting is what the clients do.
  const large = generateScenario({ seed: 1, ...SCENARIO_SIZES.large });
  const rates = [
    await measurePollingRate(large, 'fixed', { clients: burstClients, baseMs }),
    await measurePollingRate(large, 'adaptive', { clients: burstClients, baseMs }),
  ];
  const table = new Table({
    head: [
      'client polls',
      'tasks',
      'tasks/get requests',
      'per task',
      'req/s',
      'saw result late: mean',
      'max',
      'all done in',
    ],
    style: { head: [], border: [] },
  });
  for (const r of rates)
    table.push([
      r.mode === 'fixed' ? `every ${baseMs} ms (ignores pollIntervalMs)` : 'as told (pollIntervalMs)',
      r.tasks,
      r.polls,
      (r.polls / r.tasks).toFixed(1),
      (r.polls / r.seconds).toFixed(1),
      `${Math.round(r.lateMeanMs)} ms`,
      `${Math.round(r.lateMaxMs)} ms`,
      `${r.seconds.toFixed(1)} s`,
    ]);
  console.log(
    `\nAdaptive polling: ${burstClients} clients each start a reflow of 15 rooms for two weeks on a 40-room site at once (WORKERS=2, POLL_INTERVAL_MS=${baseMs})\n${table.toString()}`,
  );
  console.log(
    `adaptive polling saved ${Math.round(100 * (1 - rates[1].polls / rates[0].polls))} % of tasks/get requests`,
  );
}

if (phases.has('listen')) {
  process.stderr.write(
    `listening: ${burstClients} clients, polling, then subscriptions/listen, then 2025-11-25 sessions…\n`,
  );
  const large = generateScenario({ seed: 1, ...SCENARIO_SIZES.large });
  const waits = [
    await measurePollingRate(large, 'fixed', { clients: burstClients, baseMs }),
    await measurePollingRate(large, 'adaptive', { clients: burstClients, baseMs }),
    await measurePollingRate(large, 'listen', { clients: burstClients, baseMs }),
    await measurePollingRate(large, 'session', { clients: burstClients, baseMs }),
  ];
  const table = new Table({
    head: [
      'client waits by',
      'tasks',
      'requests per completed task',
      'saw result late: mean',
      'max',
      'change → notification: mean',
      'max',
      'all done in',
    ],
    style: { head: [], border: [] },
  });
  const perTask = (r: (typeof waits)[number]) => 1 + r.polls / r.tasks; // tools/call + the waiting
  const label = {
    fixed: `polling every ${baseMs} ms`,
    adaptive: 'polling as told (pollIntervalMs)',
    listen: '2026 listening (subscriptions/listen, notifications/tasks)',
    session: '2025 session (GET stream, notifications/tasks/status)',
  };
  const ms = (value: number | undefined) => (value === undefined ? '–' : `${Math.round(value)} ms`);
  for (const r of waits)
    table.push([
      label[r.mode],
      r.tasks,
      perTask(r).toFixed(1),
      `${Math.round(r.lateMeanMs)} ms`,
      `${Math.round(r.lateMaxMs)} ms`,
      ms(r.notifyMeanMs),
      ms(r.notifyMaxMs),
      `${r.seconds.toFixed(1)} s`,
    ]);
  console.log(
    `\nPush vs poll: ${burstClients} clients each start a reflow of 15 rooms for two weeks on a 40-room site at once (WORKERS=2, POLL_INTERVAL_MS=${baseMs}); requests counted include the tools/call (and, for a session, initialize, initialized, the GET and the DELETE)\n${table.toString()}`,
  );
  console.log(
    `listening used ${Math.round(100 * (1 - perTask(waits[2]) / perTask(waits[1])))} % fewer requests per completed task than adaptive polling`,
  );
}

if (phases.has('peer')) {
  const options = { seconds, warmupSeconds: 2, pollers: 50 };
  const peer = await measurePeer(scenario, options, (line) => process.stderr.write(`${line}\n`));
  console.log(`\n${peerReport(peer, options)}`);
  failures += peerFailures(peer);
}

console.log('');
for (const v of verdicts) console.log(`${v.ok ? '✓' : '✗'} ${v.text} (target ${v.target})`);
if (failures) console.log(`✗ ${failures} request(s) failed`);
process.exit(verdicts.every((v) => v.ok) && !failures ? 0 : 1);
