// bench:tasks --store postgres|both: the two stores side by side in one run, on this machine.
// Durable create on SQLite (synchronous=FULL) and on PostgreSQL (synchronous_commit=on, fsync on),
// accept-only nodes, next to node-postgres alone on the same server (one INSERT; the create-like
// transaction); tasks/get through one node and through two nodes sharing one PostgreSQL, next to one
// SQLite node and to node-postgres' SELECT by key; the claim with a backlog of queued and finished
// tasks; and the time from a create on one node to the claim on another, idle one.
import { cpus } from 'node:os';
import Table from 'cli-table3';
import type { Scenario } from '@reflow/seed';
import type { BenchDatabase } from './bench-server.ts';
import { measureClaimLatency, type ClaimFigures } from './claim-phase.ts';
import { measureCreate, STORAGE_SETUPS } from './create-phase.ts';
import { startBenchPostgres, type BenchPostgres } from './durable-postgres.ts';
import type { LoadFigures } from './load.ts';
import { measureNodesPolling } from './nodes-polling-phase.ts';
import { measurePostgresAlone } from './postgres-alone-phase.ts';
import { measureClaimBacklog, type Backlog, type BacklogFigures } from './claim-backlog-phase.ts';

export type BenchStore = 'sqlite' | 'postgres';
export const STORE_PHASES = ['create', 'get', 'backlog', 'claim'] as const;

/** The backlog the claim is timed under (issue 27's figure), and the same with a blocking scope holder. */
const BACKLOGS: { label: string; backlog: Backlog }[] = [
  { label: '10,000 queued, 100,000 finished', backlog: { queued: 10_000, finished: 100_000, blocked: 0 } },
  {
    label: 'same, the oldest 1,000 queued blocked by one scope holder',
    backlog: { queued: 10_000, finished: 100_000, blocked: 1_000 },
  },
];
const CLAIMS_TIMED = 300;

/**
 * One node then two, measured this many times in turn, so a slow spell of the machine during one
 * run cannot decide the verdict: it takes the median pair's ratio.
 */
const NODE_PAIRS = 5;

interface NodePair {
  one: LoadFigures;
  two: LoadFigures;
}

/** The item whose `value` is the median (the middle one of an odd number; the lower middle of an even). */
function medianBy<T>(items: T[], value: (item: T) => number): T {
  return [...items].sort((a, b) => value(a) - value(b))[Math.floor((items.length - 1) / 2)];
}

export interface StoreComparisonOptions {
  stores: BenchStore[];
  phases: Set<string>;
  seconds: number;
  pollers: number;
  creators: number;
  /** A PostgreSQL server of your own (durable, a user allowed to CREATE DATABASE); else the bench starts one. */
  postgresUrl?: string;
}

export interface Verdict {
  text: string;
  ok: boolean;
  target: string;
}

const style = { head: [], border: [] };
const ms = (n: number) => n.toFixed(1);
const load = (label: string, f: LoadFigures, ...extra: string[]) => [
  label,
  Math.round(f.perSecond).toLocaleString('en'),
  ms(f.p50Ms),
  ms(f.p99Ms),
  f.failed,
  ...extra,
];
const pct = (a: number, b: number) => `${Math.round((100 * a) / b)} %`;
const busy = (share: number | undefined) => (share === undefined ? '' : `${Math.round(100 * share)} %`);
/** The machine's CPU time (every process, all cores) per request answered, in µs. */
const cpuPerRequest = (f: LoadFigures) =>
  f.cpuBusy === undefined || f.perSecond <= 0
    ? ''
    : Math.round((f.cpuBusy * cpus().length * 1e6) / f.perSecond).toString();
/**
 * What any number of nodes could reach on this machine, at one node's CPU per request: all the cores
 * over the share one node's run kept busy (every process counted).
 */
const ceiling = (share: number | undefined) =>
  share === undefined || share <= 0 ? '' : `: this machine's ceiling is ${Math.round(100 / share)} %`;

export async function compareStores(
  scenario: Scenario,
  options: StoreComparisonOptions,
): Promise<{ verdicts: Verdict[]; notes: string[]; failures: number }> {
  const verdicts: Verdict[] = [];
  const notes: string[] = [];
  let failures = 0;
  const onSqlite = options.stores.includes('sqlite');
  let postgres: BenchPostgres | undefined;
  try {
    if (options.stores.includes('postgres')) {
      postgres = await startBenchPostgres(options.postgresUrl);
      process.stderr.write(`PostgreSQL at ${postgres.location} (fsync on, synchronous_commit on)\n`);
    }
    /** A fresh database per measurement, so none starts on another's rows. */
    const fresh = async (): Promise<BenchDatabase> => (await postgres!.createDatabase()) as BenchDatabase;

    if (options.phases.has('create')) {
      const rows: { label: string; figures: LoadFigures }[] = [];
      const sqliteFull = { ...STORAGE_SETUPS[0], acceptOnly: true };
      const connections = { connections: options.creators, seconds: options.seconds };
      if (onSqlite) {
        process.stderr.write(
          `create: SQLite ${sqliteFull.label}, ${options.creators} callers × ${options.seconds} s…\n`,
        );
        rows.push({
          label: `SQLite, ${sqliteFull.label}`,
          figures: await measureCreate(scenario, sqliteFull, connections),
        });
      }
      if (postgres) {
        process.stderr.write(`create: PostgreSQL, ${options.creators} callers × ${options.seconds} s…\n`);
        const setup = {
          label: 'PostgreSQL',
          database: await fresh(),
          synchronous: 'FULL' as const,
          acceptOnly: true,
        };
        const ours = await measureCreate(scenario, setup, connections);
        rows.push({ label: 'PostgreSQL, synchronous_commit=on (fsync on)', figures: ours });
        process.stderr.write(`create: node-postgres alone, ${options.creators} clients × ${options.seconds} s…\n`);
        const alone = { clients: options.creators, seconds: options.seconds };
        rows.push({
          label: 'node-postgres alone: one INSERT',
          figures: await measurePostgresAlone(await fresh(), 'insert', alone),
        });
        const createLike = await measurePostgresAlone(await fresh(), 'create-like', alone);
        rows.push({ label: 'node-postgres alone: BEGIN, 2 INSERTs, pg_notify, COMMIT', figures: createLike });
        verdicts.push({
          text: `PostgreSQL create ${pct(ours.perSecond, createLike.perSecond)} of node-postgres' create-like transaction (${Math.round(ours.perSecond)} vs ${Math.round(createLike.perSecond)}/s)`,
          ok: ours.perSecond >= 0.5 * createLike.perSecond,
          target: '≥ 50 %',
        });
      }
      const base = rows[0].figures;
      const table = new Table({
        head: ['store', 'req/s', 'p50 ms', 'p99 ms', 'failed', `p99 vs ${rows[0].label.split(',')[0]}`],
        style,
      });
      for (const r of rows) table.push(load(r.label, r.figures, `${(r.figures.p99Ms / base.p99Ms).toFixed(2)}×`));
      console.log(
        `\nDurable create: reflow_month → CreateTaskResult, ${options.creators} concurrent callers, accept-only nodes (WORKERS=0), the commit durable before the answer; node-postgres alone on the same server for reference\n${table.toString()}`,
      );
      if (onSqlite && postgres) {
        verdicts.push({
          text: `PostgreSQL create ${pct(rows[1].figures.perSecond, base.perSecond)} of SQLite's (${Math.round(rows[1].figures.perSecond)} vs ${Math.round(base.perSecond)}/s, ${options.creators} clients)`,
          ok: rows[1].figures.perSecond >= 0.5 * base.perSecond,
          target: '≥ 50 %',
        });
        const ratio = rows[1].figures.p99Ms / base.p99Ms;
        verdicts.push({
          text: `PostgreSQL durable create p99 ${ratio.toFixed(2)}× SQLite synchronous=FULL (${ms(rows[1].figures.p99Ms)} vs ${ms(base.p99Ms)} ms; p50 ${(rows[1].figures.p50Ms / base.p50Ms).toFixed(2)}×)`,
          ok: ratio <= 2,
          target: '≤ 2×',
        });
      }
      failures += rows.reduce((n, r) => n + r.figures.failed, 0);
    }

    if (options.phases.has('get')) {
      const rows: { label: string; figures: LoadFigures }[] = [];
      const connections = { connections: options.pollers, seconds: options.seconds };
      if (onSqlite) {
        process.stderr.write(`tasks/get: SQLite, one node, ${options.pollers} pollers × ${options.seconds} s…\n`);
        rows.push({ label: 'SQLite, one node', figures: await measureNodesPolling(scenario, 'file', 1, connections) });
      }
      let one: LoadFigures | undefined;
      let two: LoadFigures | undefined;
      /** One node's speed for what compares it with another run: the median of its runs, not the median pair's. */
      let oneMedian: LoadFigures | undefined;
      const pairs: NodePair[] = [];
      if (postgres) {
        for (let i = 1; i <= NODE_PAIRS; i++) {
          process.stderr.write(
            `tasks/get: PostgreSQL, one node, then two (pair ${i} of ${NODE_PAIRS}), ${options.pollers} pollers × ${options.seconds} s…\n`,
          );
          const pairOne = await measureNodesPolling(scenario, await fresh(), 1, connections);
          pairs.push({ one: pairOne, two: await measureNodesPolling(scenario, await fresh(), 2, connections) });
        }
        // The pair whose two-node / one-node ratio is the median (pairs measured in turn, so drift hits both).
        ({ one, two } = medianBy(pairs, (p) => p.two.perSecond / p.one.perSecond));
        oneMedian = medianBy(
          pairs.map((p) => p.one),
          (run) => run.perSecond,
        );
        rows.push({ label: 'PostgreSQL, one node (the median pair)', figures: one });
        rows.push({ label: 'PostgreSQL, two nodes (pollers split between them)', figures: two });
        // What pinning costs one node: unpinned, its helper threads (GC) may use the other core too.
        process.stderr.write(`tasks/get: PostgreSQL, one node not pinned, for reference…\n`);
        const unpinned = await measureNodesPolling(scenario, await fresh(), 1, { ...connections, pinned: false });
        rows.push({ label: 'PostgreSQL, one node not pinned (reference)', figures: unpinned });
        notes.push(
          `tasks/get: one PostgreSQL node not pinned to a core (one run, after the pairs) ${pct(unpinned.perSecond, oneMedian.perSecond)} of one pinned (the median of its ${NODE_PAIRS} runs); two pinned nodes (the median pair) ${pct(two.perSecond, unpinned.perSecond)} of it`,
        );
        process.stderr.write(`tasks/get: node-postgres alone, ${options.pollers} clients × ${options.seconds} s…\n`);
        rows.push({
          label: 'node-postgres alone: one SELECT by key',
          figures: await measurePostgresAlone(await fresh(), 'select', {
            clients: options.pollers,
            seconds: options.seconds,
          }),
        });
      }
      const base = rows[0];
      const table = new Table({
        head: [
          '',
          'req/s',
          'p50 ms',
          'p99 ms',
          'failed',
          `vs ${base.label}`,
          'machine CPU busy',
          'CPU µs per request',
          'polls per statement',
        ],
        style,
      });
      for (const r of rows)
        table.push(
          load(
            r.label,
            r.figures,
            pct(r.figures.perSecond, base.figures.perSecond),
            busy(r.figures.cpuBusy),
            cpuPerRequest(r.figures),
            r.figures.pollsPerStatement === undefined ? '' : r.figures.pollsPerStatement.toFixed(1),
          ),
        );
      console.log(
        `\ntasks/get, ${options.pollers} concurrent pollers on ${options.pollers} queued tasks (accept-only nodes, WORKERS=0, node i pinned to core i); PostgreSQL and the load tool share the machine's cores with them\n${table.toString()}`,
      );
      if (pairs.length > 0) {
        const pairTable = new Table({
          head: ['pair', 'one node req/s', 'two nodes req/s', 'two / one', 'cores busy: one / two'],
          style,
        });
        pairs.forEach((p, i) =>
          pairTable.push([
            i + 1,
            Math.round(p.one.perSecond).toLocaleString('en'),
            Math.round(p.two.perSecond).toLocaleString('en'),
            pct(p.two.perSecond, p.one.perSecond),
            `${busy(p.one.cpuBusy)} / ${busy(p.two.cpuBusy)}`,
          ]),
        );
        console.log(
          `\ntasks/get through one PostgreSQL node, then two, ${NODE_PAIRS} times in turn (fresh nodes and database each run); the verdict takes the median pair\n${pairTable.toString()}`,
        );
      }
      if (one && two)
        verdicts.push({
          text: `tasks/get through two PostgreSQL nodes: ${pct(two.perSecond, one.perSecond)} of one node's throughput, the median of ${NODE_PAIRS} pairs (a core each, PostgreSQL and the load tool sharing the ${cpus().length} cores, ${busy(one.cpuBusy)} busy with one node${ceiling(one.cpuBusy)})`,
          ok: two.perSecond >= 1.5 * one.perSecond,
          target: '≥ 150 %',
        });
      if (onSqlite && oneMedian)
        verdicts.push({
          text: `tasks/get through one PostgreSQL node: ${pct(oneMedian.perSecond, base.figures.perSecond)} of one SQLite node's (the median of its ${NODE_PAIRS} runs)`,
          ok: oneMedian.perSecond >= 0.6 * base.figures.perSecond,
          target: '≥ 60 %',
        });
      // Every run's failures: the table's rows but the median pair's, and every pair's.
      const runs = [
        ...rows.map((r) => r.figures).filter((f) => f !== one && f !== two),
        ...pairs.flatMap((p) => [p.one, p.two]),
      ];
      failures += runs.reduce((n, f) => n + f.failed, 0);
    }

    if (options.phases.has('backlog')) {
      const rows: { label: string; figures: BacklogFigures }[] = [];
      const timing = { claims: CLAIMS_TIMED, seconds: options.seconds };
      for (const { label, backlog } of BACKLOGS) {
        if (onSqlite) {
          process.stderr.write(`backlog: SQLite, ${label}…\n`);
          rows.push({ label: `SQLite, ${label}`, figures: await measureClaimBacklog('file', backlog, timing) });
        }
        if (postgres) {
          process.stderr.write(`backlog: PostgreSQL, ${label}…\n`);
          const figures = await measureClaimBacklog(await fresh(), backlog, timing);
          rows.push({ label: `PostgreSQL, ${label}`, figures });
          verdicts.push({
            text: `PostgreSQL claim with ${label}: p50 ${ms(figures.p50Ms)} ms, p99 ${ms(figures.p99Ms)} ms (${figures.claims} claims)`,
            ok: figures.p99Ms < 5,
            target: 'p99 < 5 ms',
          });
        }
      }
      const table = new Table({ head: ['backlog', 'claims', 'p50 ms', 'p99 ms', 'max ms'], style });
      for (const r of rows)
        table.push([r.label, r.figures.claims, ms(r.figures.p50Ms), ms(r.figures.p99Ms), ms(r.figures.maxMs)]);
      console.log(
        `\nOne claim through the store (claimNext, one at a time, at most ${CLAIMS_TIMED} or ${options.seconds} s), tables filled with SQL\n${table.toString()}`,
      );
    }

    if (options.phases.has('claim')) {
      const rows: { label: string; figures: ClaimFigures }[] = [];
      const timing = { seconds: options.seconds };
      if (onSqlite) {
        process.stderr.write(`claim: SQLite, one node creates and claims, ${options.seconds} s…\n`);
        rows.push({
          label: 'SQLite: one node creates and claims (reference)',
          figures: await measureClaimLatency(scenario, 'file', timing),
        });
      }
      if (postgres) {
        process.stderr.write(`claim: PostgreSQL, created on one node, claimed on another, ${options.seconds} s…\n`);
        rows.push({
          label: 'PostgreSQL: created on node A (WORKERS=0), claimed by idle node B (LISTEN/NOTIFY)',
          figures: await measureClaimLatency(scenario, await fresh(), timing),
        });
      }
      const table = new Table({
        head: [
          '',
          'tasks',
          'CreateTaskResult → claim: p50 ms',
          'p99 ms',
          'max ms',
          'row created → claim: p50 ms',
          'p99 ms',
          'claimed by the node meant to',
        ],
        style,
      });
      for (const r of rows) {
        const f = r.figures;
        table.push([
          r.label,
          f.samples,
          f.fromResult.p50Ms,
          f.fromResult.p99Ms,
          f.fromResult.maxMs,
          f.fromRow.p50Ms,
          f.fromRow.p99Ms,
          `${f.byClaimant} of ${f.samples}`,
        ]);
        failures += f.samples - f.byClaimant;
      }
      console.log(
        `\nCreate → claim: one task at a time, the claimant idle at every create; times in ms from the task's history (the claim's timestamp)\n${table.toString()}`,
      );
      const across = postgres ? rows[rows.length - 1].figures : undefined;
      if (across)
        verdicts.push({
          text: `create on one node → claim on another idle node: p50 ${across.fromResult.p50Ms} ms, p99 ${across.fromResult.p99Ms} ms (${across.samples} tasks)`,
          ok: across.fromResult.p99Ms <= 100,
          target: 'p99 ≤ 100 ms',
        });
    }
  } finally {
    await postgres?.stop();
  }
  return { verdicts, notes, failures };
}
