// `reflow demo --outlive`: the work outlives its server. The server runs as its own process on a
// generated 40-room month whose reflow takes seconds; it is SIGKILLed mid-solve and restarted on the
// same database, and the client keeps polling the same task id until the result. Then the same act
// from the client's side: `reflow call`, killed with the server, and `reflow resume`.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ReflowResult } from '@reflow/reflow';
import { generateScenario, renderSiteJson, SCENARIO_SIZES } from '@reflow/seed';
import { startServerProcess, type ServerProcess } from '@reflow/server-app/process';
import { McpHttpClient } from '../mcp-http-client.ts';
import { verifyMonth } from '../print-result.ts';
import { printTimeline, type TimelineEntry } from './outlive-timeline.ts';

const REFLOW_BIN = fileURLToPath(new URL('../../bin/reflow.mjs', import.meta.url));
const CLIENT_INFO = { name: 'reflow-demo-outlive', version: '0.1.0' };
/** A progress message from inside the solve: the snapshot is read and a worker is solving. */
const SOLVING = /: (solving|\d+ of \d+ groups solved)/;

interface TaskState {
  taskId: string;
  status: string;
  statusMessage?: string;
  pollIntervalMs?: number;
  createdAt?: string;
  result?: { structuredContent?: unknown };
  error?: { code: number; message: string };
}

interface Check {
  ok: boolean;
  text: string;
}

export async function runOutliveDemo(): Promise<number> {
  // The server processes start from the sources (the crash test's harness), which a bundle does not ship.
  if (!import.meta.url.endsWith('.ts')) {
    console.error('--outlive runs from a checkout (npm run demo -- --outlive): it starts the server from its sources');
    return 2;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'reflow-outlive-'));
  const servers: ServerProcess[] = [];
  const clients: ChildProcess[] = [];
  try {
    // The 40-room size the solver benchmark calls large: 753 bookings to move, seconds of solving.
    const scenario = generateScenario({ seed: 1, ...SCENARIO_SIZES.large });
    const seedFile = join(scratch, 'site.json');
    writeFileSync(seedFile, renderSiteJson(scenario.site));
    const args = {
      month: scenario.month,
      offline_rooms: scenario.offline_rooms,
      from: scenario.from,
      to: scenario.to,
    };
    console.log(
      `Site: ${scenario.site.site.name}, ${scenario.month}, ${scenario.site.bookings.length} bookings ` +
        `(generated, seed 1); ${args.offline_rooms.length} rooms offline ${args.from} to ${args.to}`,
    );
    const start = async (db: string, port?: number) => {
      const server = await startServerProcess(
        db,
        { SEED_FILE: seedFile, ...(port ? { PORT: String(port) } : {}) },
        true,
      );
      servers.push(server);
      return server;
    };

    const act1 = await serverAct(join(scratch, 'act1.db'), args, scenario, start);
    const act2 = await clientAct(join(scratch, 'act2.db'), args, scratch, start, clients);
    const checks = [...act1, ...act2];
    const ok = checks.every((c) => c.ok);
    console.log(
      `\n--outlive: ${ok ? 'PASS' : 'FAIL'} (${checks.filter((c) => c.ok).length} of ${checks.length} checks)`,
    );
    return ok ? 0 : 1;
  } catch (error) {
    console.error(`\n--outlive: FAIL: ${(error as Error).message}`);
    const last = servers.at(-1);
    if (last) console.error(`server output (tail):\n${last.output().slice(-3000)}`);
    return 1;
  } finally {
    for (const child of clients) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const server of servers) if (!server.dead) await server.terminate(15_000);
    rmSync(scratch, { recursive: true, force: true });
  }
}

type Start = (db: string, port?: number) => Promise<ServerProcess>;
type Args = { month: string; offline_rooms: string[]; from: string; to: string };

/** Act 1: this demo is the client; the server is killed mid-solve and restarted; the same task id answers. */
async function serverAct(db: string, args: Args, scenario: { month: string }, start: Start): Promise<Check[]> {
  console.log('\nAct 1 — the server is killed mid-solve; the task carries on after the restart');
  const first = await start(db);
  const port = Number(new URL(first.mcpUrl).port);
  console.log(`Server pid ${first.pid} on ${first.mcpUrl}, database ${db}`);
  const client = new McpHttpClient({ url: first.mcpUrl, tasks: true, clientInfo: CLIENT_INFO });

  console.log(`\n→ tools/call reflow_month ${JSON.stringify(args)}  (declaring io.modelcontextprotocol/tasks)`);
  const handle = await client.request<TaskState & { resultType: string }>('tools/call', {
    name: 'reflow_month',
    arguments: args,
  });
  if (handle.resultType !== 'task') throw new Error(`Expected a task handle, got ${JSON.stringify(handle)}`);
  console.log(
    `← CreateTaskResult taskId ${handle.taskId}, status ${handle.status}, pollIntervalMs ${handle.pollIntervalMs}`,
  );
  const local: TimelineEntry[] = [];
  const shorten = roomsShortened(args.offline_rooms);
  const shown = progressPrinter(shorten);
  shown(handle);

  // Poll as told until the task is inside its solve, then pull the plug on the server.
  let task: TaskState = handle;
  while (task.status === 'working' && !SOLVING.test(task.statusMessage ?? '')) {
    await sleep(task.pollIntervalMs ?? 1000);
    task = await client.request<TaskState>('tasks/get', { taskId: handle.taskId });
    shown(task);
  }
  if (task.status !== 'working') throw new Error(`the task ended (${task.status}) before the server could be killed`);
  await first.kill();
  local.push({ at: Date.now(), kind: 'killed', text: `SIGKILL to server pid ${first.pid}, mid-solve` });
  console.log(`\n✗ SIGKILL server pid ${first.pid} while the task says "${shorten(task.statusMessage ?? '')}"`);
  try {
    await client.request('tasks/get', { taskId: handle.taskId });
    throw new Error('the killed server still answered');
  } catch (error) {
    console.log(`  tasks/get ${handle.taskId} → no answer (${(error as Error).message})`);
  }

  const restartedAt = Date.now();
  const second = await start(db, port);
  local.push({ at: restartedAt, kind: 'restarted', text: 'the server started again on the same port and database' });
  local.push({ at: Date.now(), kind: 'listening', text: `server pid ${second.pid} answers again` });
  console.log(`↻ server restarted: pid ${second.pid} on ${second.mcpUrl}, the same database\n`);
  while (task.status === 'working' || task.status === 'input_required') {
    await sleep(task.pollIntervalMs ?? 1000);
    task = await client.request<TaskState>('tasks/get', { taskId: handle.taskId });
    shown(task);
  }

  const detail = await taskDetail(second.mcpUrl, handle.taskId);
  const history: TimelineEntry[] = detail.events.map((e) => ({
    at: Date.parse(e.at),
    kind: e.kind,
    attempt: e.attempt ?? undefined,
    text: shorten(e.message ?? ''),
  }));
  console.log(`\nTimeline of ${handle.taskId} (the task's history from GET /api/tasks/:id, and this demo's own):`);
  printTimeline([...history, ...local], Date.parse(handle.createdAt!));

  const reclaimed = history.find((e) => e.kind === 'claimed' && (e.attempt ?? 0) >= 2);
  const checks: Check[] = [
    {
      ok: task.taskId === handle.taskId,
      text: `the same task id before the kill and after the restart: ${task.taskId}`,
    },
    {
      ok: task.status === 'completed',
      text: `the task completed${task.status === 'completed' ? '' : ` (it is ${task.status}: ${task.error?.message ?? ''})`}`,
    },
    {
      ok: Boolean(reclaimed && reclaimed.at >= restartedAt),
      text: `attempt ${reclaimed?.attempt ?? '2'} was claimed by the restarted server, on its start`,
    },
  ];
  if (task.status === 'completed') {
    const result = task.result!.structuredContent as ReflowResult;
    console.log(
      `\nmoved ${result.moved}, unresolved ${result.unresolved} (of ${result.affected} affected); ` +
        `total shift ${result.totalShiftMinutes} min`,
    );
    const month = await verifyMonth(client, scenario, result);
    checks.push(
      ...month.lines.filter((l) => /^\s*[✓✗]/.test(l)).map((l) => ({ ok: l.includes('✓'), text: l.trim().slice(2) })),
    );
  }
  printChecks(checks);
  return checks;
}

/** Act 2: the same through the command line: `reflow call` dies with the server; `reflow resume` finishes. */
async function clientAct(
  db: string,
  args: Args,
  scratch: string,
  start: Start,
  clients: ChildProcess[],
): Promise<Check[]> {
  console.log("\nAct 2 — the client's side: `reflow call`, killed with the server, then `reflow resume`");
  const first = await start(db);
  const port = Number(new URL(first.mcpUrl).port);
  console.log(`Server pid ${first.pid} on ${first.mcpUrl}, a fresh database ${db}`);
  const stateFile = join(scratch, 'tasks.json');
  const common = ['--url', first.mcpUrl, '--state-file', stateFile];
  const callArgs = ['call', '--month', args.month, '--offline', ...args.offline_rooms];
  callArgs.push('--from', args.from, '--to', args.to, ...common);

  console.log(`\n$ npx reflow ${callArgs.join(' ')}`);
  const shorten = roomsShortened(args.offline_rooms);
  const call = cli(callArgs, clients, shorten);
  await call.until((out) => SOLVING.test(out), 60_000);
  const taskId = /Task (tsk_[0-9a-f]+)/.exec(call.output())?.[1];
  await first.kill();
  call.child.kill('SIGKILL');
  await call.exited;
  console.log(`\n✗ SIGKILL server pid ${first.pid} and reflow call pid ${call.child.pid} together`);
  const second = await start(db, port);
  console.log(`↻ server restarted: pid ${second.pid} on ${second.mcpUrl}, the same database`);

  console.log(`\n$ npx reflow resume --state-file ${stateFile}`);
  const resume = cli(['resume', '--state-file', stateFile], clients, shorten, 4);
  const code = await resume.exited;
  const resumedId = /(tsk_[0-9a-f]{8})…/.exec(resume.output())?.[1];
  const checks: Check[] = [
    { ok: code === 0, text: `reflow resume exited ${code} (0: completed, result printed)` },
    {
      ok: Boolean(taskId && resumedId && taskId.startsWith(resumedId)),
      text: `reflow resume finished the task reflow call started: ${taskId ?? '(no task id printed)'}`,
    },
  ];
  printChecks(checks);
  return checks;
}

/** The offline rooms, named in every message of the task, as "16 offline rooms" (the list is long). */
function roomsShortened(rooms: string[]) {
  const list = rooms.join(', ');
  return (text: string) => text.replace(list, `${rooms.length} offline rooms`);
}

/** Prints a task's status line when its message changes. */
function progressPrinter(shorten: (text: string) => string) {
  let said = '';
  return (task: TaskState) => {
    const line = `  [${task.status}] ${shorten(task.statusMessage ?? '')}`;
    if (line !== said) console.log(line);
    said = line;
  };
}

function printChecks(checks: Check[]): void {
  console.log('\nChecked:');
  for (const c of checks) console.log(`  ${c.ok ? '✓' : '✗'} ${c.text}`);
}

interface TaskDetail {
  events: { at: string; attempt: number | null; kind: string; message: string | null }[];
}

/** The operator API's view of the task: its whole history, with the attempt of each event. */
async function taskDetail(mcpUrl: string, taskId: string): Promise<TaskDetail> {
  const response = await fetch(`${mcpUrl.replace(/\/mcp$/, '')}/api/tasks/${taskId}`);
  if (!response.ok) throw new Error(`GET /api/tasks/${taskId}: HTTP ${response.status}`);
  return (await response.json()) as TaskDetail;
}

/**
 * Runs `reflow …` as its own process, echoing its output indented. Stdout is cut to `stdoutLines`
 * (the result tables run to hundreds of lines); everything is kept for matching.
 */
function cli(args: string[], clients: ChildProcess[], shorten: (text: string) => string, stdoutLines = Infinity) {
  const child = spawn(process.execPath, [REFLOW_BIN, ...args], { env: { ...process.env, REFLOW_STATE_FILE: '' } });
  clients.push(child);
  let output = '';
  let stdoutShown = 0;
  let cut = 0;
  const echo = (chunk: Buffer, stdout: boolean) => {
    output += chunk.toString();
    for (const line of chunk.toString().split('\n')) {
      if (!line) continue;
      if (stdout && stdoutShown >= stdoutLines) {
        cut++;
        continue;
      }
      if (stdout) stdoutShown++;
      console.log(`  ${shorten(line)}`);
    }
  };
  child.stdout.on('data', (d: Buffer) => echo(d, true));
  child.stderr.on('data', (d: Buffer) => echo(d, false));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      if (cut) console.log(`  … ${cut} more lines (the moves and unresolved bookings as tables)`);
      resolve(code);
    }),
  );
  return {
    child,
    exited,
    output: () => output,
    async until(seen: (output: string) => boolean, timeoutMs: number) {
      const deadline = Date.now() + timeoutMs;
      while (!seen(output)) {
        if (child.exitCode !== null) throw new Error(`reflow ${args[0]} exited ${child.exitCode} early:\n${output}`);
        if (Date.now() > deadline) throw new Error(`reflow ${args[0]} printed no progress within ${timeoutMs} ms`);
        await sleep(50);
      }
    },
  };
}
