// Our server next to a peer: the official TypeScript SDK 1.x server with its experimental tasks and
// in-memory task store (sdk1-peer-server.ts). Both on the wire they share, 2025-11-25: creating a
// task one at a time and ten at once, and tasks/get of a working task under 50 pollers; ours also
// creates on its own 2026-07-28 wire. Ours is the default server (a SQLite file, synchronous=FULL)
// creating reflow_month behind busy workers, and again on an accept-only node (WORKERS=0, no solve
// sharing the cores); the peer's tool only starts a timer, and the peer keeps its tasks in memory
// (a restart loses them). Every figure comes from its own fresh server process,
// after a warm-up run on that process.
import Table from 'cli-table3';
import type { Scenario } from '@reflow/seed';
import { startBenchServer } from './bench-server.ts';
import { runLoad, type LoadFigures } from './load.ts';
import { mcpBody, mcpHeaders } from '../harness/mcp-wire.ts';
import { reflowStream, type ReflowArgs } from './reflow-requests.ts';
import { startSdk1Peer } from './sdk1-peer.ts';
import { createReflowTask } from './task-waits.ts';
import { body2025, isCreateTaskResult2025, isWorkingTask2025, openSession2025 } from './wire-2025.ts';

export interface PeerOptions {
  seconds: number;
  /** Seconds of the same load, unmeasured, before each measured run. */
  warmupSeconds: number;
  /** Connections for the tasks/get row. */
  pollers: number;
}

export interface PeerFigures {
  /** 2025-11-25 create with 1 and 10 connections. */
  create2025: { ours: LoadFigures; peer: LoadFigures }[];
  /** Ours only, the same 2025-11-25 creates on an accept-only node (WORKERS=0), set against the peer's row. */
  create2025AcceptOnly: LoadFigures[];
  /** Ours only: the 2026-07-28 create with 1 and 10 connections, behind busy workers. */
  create2026: LoadFigures[];
  /** The same on an accept-only node (WORKERS=0): no solver thread shares the two cores with the creates. */
  create2026AcceptOnly: LoadFigures[];
  get2025: { ours: LoadFigures; peer: LoadFigures };
}

export const CREATE_CONNECTIONS = [1, 10] as const;
/** How long the peer's tool works: longer than any run, so its tasks stay `working` throughout. */
const PEER_WORK_MS = 600_000;
/** Working tasks each tasks/get run cycles through. */
const POLLED_TASKS = 50;

/** A fresh server to measure: its URL, how to stop it, and the task tool with its next arguments. */
export type Target = { mcpUrl: string; stop(): Promise<void>; tool: string; args: () => Record<string, unknown> };

async function ours(scenario: Scenario, env: Record<string, string> = {}): Promise<Target & { next(): ReflowArgs }> {
  const server = await startBenchServer(scenario.site, { database: 'file', env });
  const next = reflowStream(scenario);
  return { mcpUrl: server.mcpUrl, stop: () => server.stop(), tool: 'reflow_month', next, args: () => ({ ...next() }) };
}

/** Ours with both workers busy, as create-phase.ts has it: the measured creates queue behind work already running. */
async function oursBusy(scenario: Scenario): Promise<Target> {
  const target = await ours(scenario);
  for (let i = 0; i < 20; i++) await createReflowTask(target.mcpUrl, target.next());
  return target;
}

/** The SDK 1.x peer, fresh, with its `delay` tool. */
export async function sdk1PeerTarget(): Promise<Target> {
  const server = await startSdk1Peer({ workMs: PEER_WORK_MS });
  return { ...server, tool: 'delay', args: () => ({}) };
}

/** A load run preceded by the same load unmeasured (JIT, caches, pools, as a running server has them). */
async function warmThenMeasure(run: (seconds: number) => Promise<LoadFigures>, options: PeerOptions) {
  if (options.warmupSeconds > 0) await run(options.warmupSeconds);
  return run(options.seconds);
}

/** 2025-11-25 tools/call with params.task, each a new task, each with its own JSON-RPC id (as one client's session has them). */
export async function create2025(start: () => Promise<Target>, connections: number, options: PeerOptions) {
  const target = await start();
  try {
    const session = await openSession2025(target.mcpUrl);
    let id = 1;
    return await warmThenMeasure(
      (seconds) =>
        runLoad({
          url: target.mcpUrl,
          connections,
          durationSeconds: seconds,
          method: 'POST',
          build: () => ({
            headers: session.headers,
            body: body2025('tools/call', { name: target.tool, arguments: target.args(), task: {} }, ++id),
          }),
          accept: isCreateTaskResult2025,
        }),
      options,
    );
  } finally {
    await target.stop();
  }
}

/** The server's group-commit counters (ours only): commits, and creates in them. */
async function groupCommits(mcpUrl: string): Promise<{ commits: number; creates: number }> {
  const text = await (await fetch(mcpUrl.replace(/\/mcp$/, '/metrics'))).text();
  const counter = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN);
  return {
    commits: counter('reflow_task_create_commits_total'),
    creates: counter('reflow_task_creates_committed_total'),
  };
}

/** Ours on its own wire, as create-phase.ts measures it; with the measured run's creates per group commit. */
async function create2026(start: () => Promise<Target>, connections: number, options: PeerOptions) {
  const target = await start();
  try {
    let before = { commits: 0, creates: 0 };
    const figures = await warmThenMeasure(async (seconds) => {
      before = await groupCommits(target.mcpUrl);
      return measureCreate2026(target, connections, seconds);
    }, options);
    const after = await groupCommits(target.mcpUrl);
    return { ...figures, meanBatch: (after.creates - before.creates) / (after.commits - before.commits) };
  } finally {
    await target.stop();
  }
}

function measureCreate2026(target: Target, connections: number, seconds: number) {
  return runLoad({
    url: target.mcpUrl,
    connections,
    durationSeconds: seconds,
    method: 'POST',
    build: () => ({
      headers: mcpHeaders('tools/call', 'reflow_month'),
      body: mcpBody('tools/call', { name: 'reflow_month', arguments: target.args() }),
    }),
    accept: (b) => b.includes('"resultType":"task"'),
  });
}

/** 2025-11-25 tasks/get, the pollers going round the same working tasks, a fresh id each request. */
export async function get2025(start: () => Promise<Target>, options: PeerOptions) {
  const target = await start();
  try {
    const session = await openSession2025(target.mcpUrl);
    const taskIds: string[] = [];
    for (let i = 0; i < POLLED_TASKS; i++) {
      const created = await session.call('tools/call', { name: target.tool, arguments: target.args(), task: {} });
      taskIds.push(created.task.taskId);
    }
    let id = 1;
    return await warmThenMeasure(
      (seconds) =>
        runLoad({
          url: target.mcpUrl,
          connections: options.pollers,
          durationSeconds: seconds,
          method: 'POST',
          build: () => {
            id++;
            return {
              headers: session.headers,
              body: body2025('tasks/get', { taskId: taskIds[id % POLLED_TASKS] }, id),
            };
          },
          accept: isWorkingTask2025,
        }),
      options,
    );
  } finally {
    await target.stop();
  }
}

export async function measurePeer(
  scenario: Scenario,
  options: PeerOptions,
  progress: (line: string) => void = () => {},
): Promise<PeerFigures> {
  const create2025Figures: PeerFigures['create2025'] = [];
  for (const connections of CREATE_CONNECTIONS) {
    progress(`peer: create (2025-11-25), ${connections} connection(s), ours then the SDK 1.x peer…`);
    create2025Figures.push({
      ours: await create2025(() => oursBusy(scenario), connections, options),
      peer: await create2025(sdk1PeerTarget, connections, options),
    });
  }
  const create2025AcceptOnlyFigures: LoadFigures[] = [];
  for (const connections of CREATE_CONNECTIONS) {
    progress(`peer: create (2025-11-25, ours only), ${connections} connection(s), accept-only…`);
    create2025AcceptOnlyFigures.push(await create2025(() => ours(scenario, { WORKERS: '0' }), connections, options));
  }
  const create2026Figures: LoadFigures[] = [];
  const acceptOnlyFigures: LoadFigures[] = [];
  for (const connections of CREATE_CONNECTIONS) {
    progress(
      `peer: create (2026-07-28, ours only), ${connections} connection(s), behind busy workers, then accept-only…`,
    );
    create2026Figures.push(await create2026(() => oursBusy(scenario), connections, options));
    acceptOnlyFigures.push(await create2026(() => ours(scenario, { WORKERS: '0' }), connections, options));
  }
  progress(`peer: tasks/get (2025-11-25) of a working task, ${options.pollers} connections, ours then the peer…`);
  // WORKERS=0 (accept-only), as the polling phase: ours' tasks stay queued, so working, and no
  // solver thread shares the cores with the path measured; the peer's timer does no work either.
  const get = {
    ours: await get2025(() => ours(scenario, { WORKERS: '0' }), options),
    peer: await get2025(sdk1PeerTarget, options),
  };
  return {
    create2025: create2025Figures,
    create2025AcceptOnly: create2025AcceptOnlyFigures,
    create2026: create2026Figures,
    create2026AcceptOnly: acceptOnlyFigures,
    get2025: get,
  };
}

/** Every load run's failed requests (non-2xx, errors, timeouts, answers that are not a task). */
export function peerFailures(figures: PeerFigures): number {
  const all = [
    ...figures.create2025.flatMap((f) => [f.ours, f.peer]),
    ...figures.create2025AcceptOnly,
    ...figures.create2026,
    ...figures.create2026AcceptOnly,
    figures.get2025.ours,
    figures.get2025.peer,
  ];
  return all.reduce((n, f) => n + f.failed, 0);
}

/** One table, a row per measurement: ours, the peer, the ratio; then what the figures leave out. */
export function peerReport(figures: PeerFigures, options: PeerOptions): string {
  const rate = (f: LoadFigures) => `${Math.round(f.perSecond).toLocaleString('en')}/s`;
  const ratio = (a: LoadFigures, b: LoadFigures) => `${(a.perSecond / b.perSecond).toFixed(2)}×`;
  const detail = (f: LoadFigures) =>
    `${f.p99Ms.toFixed(1)} ms, ${f.failed}${f.meanBatch === undefined ? '' : `; ${f.meanBatch.toFixed(1)} creates per commit`}`;
  const at = (n: number) => (n === 1 ? '1 at a time' : `${n} at once`);
  const table = new Table({
    head: ['measurement', 'ours', 'SDK 1.x peer', 'ours/peer', 'ours: p99, failed', 'peer: p99, failed'],
    style: { head: [], border: [] },
  });
  CREATE_CONNECTIONS.forEach((n, i) => {
    const { ours: o, peer: p } = figures.create2025[i];
    table.push([`create, ${at(n)} (2025-11-25)`, rate(o), rate(p), ratio(o, p), detail(o), detail(p)]);
  });
  CREATE_CONNECTIONS.forEach((n, i) => {
    const o = figures.create2025AcceptOnly[i];
    const p = figures.create2025[i].peer;
    table.push([`create, ${at(n)} (2025-11-25, ours accept-only node)`, rate(o), rate(p), ratio(o, p), detail(o), '']);
  });
  for (const [label, rows] of [
    ['ours on 2026-07-28', figures.create2026],
    ['ours on 2026-07-28, accept-only node', figures.create2026AcceptOnly],
  ] as const)
    CREATE_CONNECTIONS.forEach((n, i) => {
      const o = rows[i];
      const p = figures.create2025[i].peer;
      table.push([`create, ${at(n)} (${label})`, rate(o), `${rate(p)} (2025-11-25)`, ratio(o, p), detail(o), '']);
    });
  const { ours: o, peer: p } = figures.get2025;
  table.push([
    `tasks/get, task working, ${options.pollers} pollers (2025-11-25)`,
    rate(o),
    rate(p),
    ratio(o, p),
    detail(o),
    detail(p),
  ]);
  return [
    'Ours (SQLite file, synchronous=FULL; creating reflow_month behind busy workers) next to the official TypeScript',
    'SDK 1.x server (experimental tasks, InMemoryTaskStore, Streamable HTTP on Express; its tool only starts a timer).',
    `${options.seconds} s per figure after a ${options.warmupSeconds} s warm-up, each on a fresh server process.`,
    table.toString(),
    'The peer keeps its tasks in memory and loses every one on restart; ours has committed each task to disk',
    'before answering. The peer speaks only 2025-11-25: the 2026-07-28 rows set ours on its own wire against it.',
    'Accept-only (WORKERS=0, a front-door node of a cluster): its tasks wait for a node with workers, so no solver',
    "thread takes the two cores from the creates, as the peer's timer takes none.",
  ].join('\n');
}
