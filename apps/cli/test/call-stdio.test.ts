// `reflow call --stdio` and `reflow resume` of a task made that way, as a person runs them: the CLI
// starts this project's own `reflow mcp` on a store (a fresh SQLite file, or on PostgreSQL a fresh
// database) through the SDK's stdio transport, and follows the task by subscriptions/listen. Its
// --debug transcript (every message sent → and received ←) shows the status was pushed, not polled.
import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { openStore } from '@reflow/db';
import { generateScenario, renderSiteJson, SCENARIO_SIZES } from '@reflow/seed';
import { freshTestDatabase, onPostgres } from '../../../scripts/test-store.mjs';
import { reflow, REFLOW_WEEKS, scratch, until } from './cli-helpers.ts';

const CALL = [...REFLOW_WEEKS, '--dry-run'];

/** The generated 24-room month, 8 rooms offline: its solve takes over a second on a quiet machine. */
const SLOW_MONTH = generateScenario({ seed: 1, ...SCENARIO_SIZES.medium });
const SLOW_CALL = [
  ...['--month', SLOW_MONTH.month, '--offline', ...SLOW_MONTH.offline_rooms],
  ...['--from', SLOW_MONTH.from, '--to', SLOW_MONTH.to, '--dry-run'],
];

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, any>;
  result?: Record<string, any>;
}

/** The messages of a --debug transcript, in order: what was sent (→) and received (←). */
function transcript(stderr: string): { sent: Message[]; received: Message[] } {
  const sent: Message[] = [];
  const received: Message[] = [];
  for (const line of stderr.split('\n')) {
    const m = /^mcp ([→←]) (\{.*\})$/.exec(line);
    if (m) (m[1] === '→' ? sent : received).push(JSON.parse(m[2]) as Message);
  }
  return { sent, received };
}

const taskNotifications = (received: Message[], taskId: string) =>
  received.filter((m) => m.method === 'notifications/tasks' && m.params?.taskId === taskId);

/** A fresh store of this run's kind, and the flags that name it to `reflow … --stdio`. */
async function freshStore(dir: string) {
  if (!onPostgres()) {
    const path = join(dir, 'reflow.db');
    return {
      flags: ['--database', path],
      saved: { database: path },
      open: { databasePath: path },
      drop: async () => {},
    };
  }
  const database = await freshTestDatabase();
  return {
    flags: ['--database-url', database.location],
    saved: { databaseUrl: database.location },
    open: { databaseUrl: database.location },
    drop: () => database.drop(),
  };
}

/** Resolves once the process `pid` is gone. */
const gone = (pid: number) =>
  until(
    `process ${pid} to exit`,
    () => {
      try {
        process.kill(pid, 0);
        return undefined;
      } catch {
        return true;
      }
    },
    60_000,
  );

test('reflow call --stdio on a fresh store: status pushed over the pipe up to completed, never polled', async (t) => {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = await freshStore(dir);
  t.after(() => store.drop());
  const stateFile = join(dir, 'tasks.json');

  const call = reflow(['call', ...CALL, '--stdio', ...store.flags, '--state-file', stateFile, '--json', '--debug'], {
    POLL_INTERVAL_MS: '100',
  });
  assert.equal(await call.exited, 0, call.stderr());
  const out = JSON.parse(call.stdout().trim()) as { taskId: string; status: string; result: { affected: number } };
  assert.equal(out.status, 'completed');
  assert.equal(out.result.affected, 142);

  const { sent, received } = transcript(call.stderr());
  assert.deepEqual(
    sent.filter((m) => m.id !== undefined).map((m) => m.method),
    ['tools/call', 'subscriptions/listen'],
    'one create, one listen: no tasks/get',
  );
  const listen = sent.find((m) => m.method === 'subscriptions/listen')!;
  assert.deepEqual(listen.params?.notifications, { taskIds: [out.taskId] });
  const ack = received.find((m) => m.method === 'notifications/subscriptions/acknowledged');
  assert.deepEqual(ack?.params?.notifications.taskIds, [out.taskId]);
  const pushed = taskNotifications(received, out.taskId);
  assert.ok(pushed.length >= 2, `where it stood, then changes: ${JSON.stringify(pushed.map((n) => n.params?.status))}`);
  assert.ok(pushed.every((n) => n.params?._meta['io.modelcontextprotocol/subscriptionId'] === listen.id));
  assert.equal(pushed.at(-1)!.params!.status, 'completed', 'the terminal status is the last pushed');
  assert.deepEqual(pushed.at(-1)!.params!.result.structuredContent, out.result, 'the result printed is the one pushed');
  // The progress line shows what was pushed.
  for (const n of pushed.filter((p) => p.params?.status === 'working'))
    assert.ok(call.stderr().includes(`…  ${n.params!.statusMessage}\n`), `shown: ${n.params!.statusMessage}`);

  // The state file says how to reach the task again: stdio, on this store (never a password).
  const saved = (JSON.parse(readFileSync(stateFile, 'utf8')) as { tasks: Record<string, unknown>[] }).tasks[0];
  assert.equal(saved.taskId, out.taskId);
  assert.deepEqual(saved.stdio, store.saved);
  assert.equal(saved.url, undefined);
  assert.equal(saved.status, 'completed');

  // --poll over stdio: tasks/get through the same pipe (the path a dropped listen falls back to).
  const polled = reflow(
    ['call', ...CALL, '--stdio', ...store.flags, '--state-file', stateFile, '--json', '--debug', '--poll'],
    { POLL_INTERVAL_MS: '100' },
  );
  assert.equal(await polled.exited, 0, polled.stderr());
  assert.equal((JSON.parse(polled.stdout().trim()) as { status: string }).status, 'completed');
  const polling = transcript(polled.stderr())
    .sent.filter((m) => m.id !== undefined)
    .map((m) => m.method);
  assert.equal(polling[0], 'tools/call');
  assert.ok(polling.length >= 2 && polling.slice(1).every((m) => m === 'tasks/get'), JSON.stringify(polling));

  // cancel finds the task where the state file says it lives: over stdio, on this store.
  const cancel = reflow(['cancel', out.taskId, '--state-file', stateFile]);
  assert.equal(await cancel.exited, 0, cancel.stderr());
  assert.match(cancel.stdout(), new RegExp(`Task ${out.taskId} had already ended completed`));
});

test('reflow call --stdio SIGKILLed mid-solve: its server exits and hands the task back; reflow resume restarts one on the same store and gets it pushed to completed', async (t) => {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const store = await freshStore(dir);
  t.after(() => store.drop());
  const stateFile = join(dir, 'tasks.json');
  // A month whose solve takes over a second (the demo month's, a fifth of one): the kill, sent as soon
  // as the solve is seen under way, lands while it runs on a loaded machine too. On the demo month a
  // kill 0.1 s late met a task already completed (CI, once), which the store check below names.
  const seedFile = join(dir, 'site.json');
  writeFileSync(seedFile, renderSiteJson(SLOW_MONTH.site));

  // No grace: the orphaned server releases the running attempt at once, so only a new server can finish it.
  const call = reflow(['call', ...SLOW_CALL, '--stdio', ...store.flags, '--state-file', stateFile, '--debug'], {
    POLL_INTERVAL_MS: '100',
    SHUTDOWN_GRACE_MS: '0',
    SEED_FILE: seedFile,
  });
  const serverPid = Number(
    await until('the server it started', () => /as pid (\d+)/.exec(call.stderr())?.[1], 120_000),
  );
  const taskId = await until(
    'a pushed status of the running task',
    () => {
      const { received } = transcript(call.stderr());
      return received.find((m) => m.method === 'notifications/tasks' && /solving/.test(m.params?.statusMessage))?.params
        ?.taskId as string | undefined;
    },
    120_000,
  );
  call.child.kill('SIGKILL');
  assert.equal(await call.exited, null, 'killed, not exited');
  // Its stdin closed with it: the server it started stops by itself (it is not left behind).
  await gone(serverPid);
  const left = (JSON.parse(readFileSync(stateFile, 'utf8')) as { tasks: Record<string, unknown>[] }).tasks[0];
  assert.equal(left.taskId, taskId);
  assert.equal(left.status, 'working');
  // In the store: handed back, unclaimed, by the server's shutdown, and its attempt not spent.
  const reader = await openStore(store.open);
  try {
    const row = await reader.tasks.get(taskId);
    assert.equal(row?.status, 'working', 'the kill landed mid-solve: the task did not end with its first server');
    assert.equal(row.claimedBy, null);
    const events = await reader.tasks.events(taskId);
    const released = events.filter((e) => e.kind === 'released');
    assert.equal(released.length, 1);
    assert.match(released[0].message, /shut down before this attempt finished/);
    const allowed = (events.find((e) => e.kind === 'created')?.data as { maxAttempts: number }).maxAttempts;
    assert.equal(row.maxAttempts, allowed + 1, 'the interrupted attempt is given back');
  } finally {
    await reader.close();
  }

  // No --stdio, no store: the state file says where the task lives.
  const resume = reflow(['resume', taskId, '--state-file', stateFile, '--json', '--debug'], {
    POLL_INTERVAL_MS: '100',
    DATABASE_URL: '',
    DATABASE_PATH: '',
  });
  assert.equal(await resume.exited, 0, resume.stderr());
  const out = JSON.parse(resume.stdout().trim()) as { taskId: string; status: string; result: { affected: number } };
  assert.equal(out.taskId, taskId, 'the same task');
  assert.equal(out.status, 'completed');
  // All the bookings the first server announced it was reflowing.
  const announced = /Reflowing (\d+) bookings/.exec(call.stderr())?.[1];
  assert.equal(out.result.affected, Number(announced));
  assert.match(resume.stderr(), new RegExp(`Resuming ${taskId} at reflow mcp --database(-url)? \\S+ \\(stdio\\)`));
  // The resumed server ran it: its log (shown under --debug) has the attempt it started.
  const resumedPid = Number(/as pid (\d+)/.exec(resume.stderr())?.[1]);
  assert.notEqual(resumedPid, serverPid);
  assert.ok(
    resume
      .stderr()
      .split('\n')
      .some((line) => line.includes(taskId) && line.includes('task attempt started')),
    'the new server started an attempt of the task',
  );
  const { sent, received } = transcript(resume.stderr());
  assert.deepEqual(
    sent.filter((m) => m.id !== undefined).map((m) => m.method),
    ['subscriptions/listen'],
    'pushed, not polled',
  );
  const pushed = taskNotifications(received, taskId);
  assert.ok(pushed.some((n) => n.params?.status === 'working'));
  assert.equal(pushed.at(-1)!.params!.status, 'completed');

  const done = (JSON.parse(readFileSync(stateFile, 'utf8')) as { tasks: Record<string, unknown>[] }).tasks[0];
  assert.equal(done.status, 'completed');
  assert.deepEqual(done.stdio, store.saved);
});

test('bad combinations are refused before anything starts', async () => {
  const refused = async (args: string[], pattern: RegExp) => {
    const run = reflow(args);
    assert.equal(await run.exited, 1, run.stderr());
    assert.match(run.stderr(), pattern);
  };
  // All at once: each is a process start and nothing more.
  await Promise.all([
    refused(
      ['call', ...CALL, '--stdio', '--url', 'http://127.0.0.1:9/mcp'],
      /option '--stdio' cannot be used with option '--url <url>'/,
    ),
    refused(
      ['resume', '--stdio', '--token', 'secret'],
      /option '--stdio' cannot be used with option '--token <token>'/,
    ),
    refused(
      ['call', ...CALL, '--database', 'x.db'],
      /--database and --database-url choose the store of the server --stdio starts/,
    ),
    refused(
      ['cancel', 'tsk_0', '--stdio', '--database', 'x.db', '--database-url', 'postgres://localhost/x'],
      /option '--database-url <url>' cannot be used with option '--database <path>'/,
    ),
  ]);
});
