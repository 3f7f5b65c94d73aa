// `reflow call` as a person (or a script) runs it: a child process, a real server, a real state file.
// The client is SIGKILLed while it waits; `reflow resume` picks the same task up and gets its result.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reflow, REFLOW_WEEKS, scratch, server, until } from './cli-helpers.ts';

const CALL = REFLOW_WEEKS;

interface StateDoc {
  version: number;
  tasks: {
    taskId: string;
    url: string;
    tool: string;
    arguments: Record<string, unknown>;
    ttlMs: number;
    pollIntervalMs: number;
    status: string;
  }[];
}

test("SIGKILL while waiting, then `reflow resume` gets the same task's result; the state file is never half-written", async (t) => {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'reflow.db');
  const stateFile = join(dir, 'state', 'tasks.json');
  // An accept-only server: the task stays queued, so the client is certainly still waiting when killed.
  const acceptOnly = await server(db, { WORKERS: '0', POLL_INTERVAL_MS: '200' });
  t.after(() => acceptOnly.close());

  const call = reflow(['call', ...CALL, '--url', acceptOnly.mcpUrl, '--state-file', stateFile]);
  let reads = 0;
  const saved = await until('the handle in the state file', () => {
    let text: string;
    try {
      text = readFileSync(stateFile, 'utf8');
    } catch {
      return undefined;
    }
    reads++;
    return (JSON.parse(text) as StateDoc).tasks[0]; // throws (fails the test) if ever half-written
  });
  assert.match(saved.taskId, /^tsk_[0-9a-f]{40}$/);
  assert.equal(saved.url, acceptOnly.mcpUrl);
  assert.equal(saved.tool, 'reflow_month');
  assert.deepEqual(saved.arguments, {
    month: '2026-09',
    offline_rooms: ['studio-b'],
    from: '2026-09-07',
    to: '2026-09-20',
  });
  assert.equal(saved.ttlMs, 86_400_000);
  assert.ok(saved.pollIntervalMs >= 200);
  assert.equal(saved.status, 'working');
  assert.ok(reads >= 1);

  // Let it poll at least once, then kill it without warning.
  await until('a first poll', () => (call.stderr().includes('Queued') ? true : undefined));
  call.child.kill('SIGKILL');
  assert.equal(await call.exited, null, 'killed, not exited');
  const afterKill = JSON.parse(readFileSync(stateFile, 'utf8')) as StateDoc;
  assert.equal(afterKill.tasks.length, 1);
  assert.equal(afterKill.tasks[0].status, 'working');
  assert.deepEqual(readdirSync(join(dir, 'state')), ['tasks.json'], 'no temp files left beside it');
  assert.equal((await acceptOnly.services.engine.get(saved.taskId))!.status, 'working');

  // A second process with workers shares the database and runs the queued task.
  const workers = await server(db, { WORKERS: '2' });
  t.after(() => workers.close());

  const resume = reflow(['resume', '--state-file', stateFile, '--json']);
  assert.equal(await resume.exited, 0, resume.stderr());
  const out = JSON.parse(resume.stdout().trim()) as {
    taskId: string;
    status: string;
    result: { affected: number; moved: number; unresolved: number };
  };
  assert.equal(out.taskId, saved.taskId, 'the same task');
  assert.equal(out.status, 'completed');
  assert.equal(out.result.affected, 142);
  assert.equal(out.result.moved + out.result.unresolved, 142);
  assert.match(resume.stderr(), new RegExp(`Resuming ${saved.taskId} at ${acceptOnly.mcpUrl.replace(/[.]/g, '\\.')}`));

  const done = JSON.parse(readFileSync(stateFile, 'utf8')) as StateDoc;
  assert.equal(done.tasks[0].status, 'completed');
  const again = reflow(['resume', '--state-file', stateFile]);
  assert.equal(await again.exited, 0);
  assert.match(again.stderr(), /No unfinished tasks/);
});

test('exit codes: completed 0 (with a table), cancelled 3, expired 4, bad arguments 1, unreachable 1, server gone mid-wait 6', async (t) => {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const stateFile = join(dir, 'tasks.json');
  const live = await server(join(dir, 'live.db'), { POLL_INTERVAL_MS: '100' });
  t.after(() => live.close());

  // The server's base URL (as `reflow tasks` takes it) works too: /mcp is added.
  const ok = reflow(['call', ...CALL, '--dry-run', '--url', live.url, '--state-file', stateFile]);
  assert.equal(await ok.exited, 0, ok.stderr());
  assert.match(ok.stdout(), /Would move \d+ of 142 bookings in studio-b, 2026-09-07 to 2026-09-20/);
  assert.match(ok.stdout(), /│ booking +│ from +│ to +│ shift +│ title/);
  assert.match(ok.stdout(), /Needs rebooking/);
  assert.equal((JSON.parse(readFileSync(stateFile, 'utf8')) as StateDoc).tasks[0].url, live.mcpUrl);

  const bad = reflow([
    'call',
    '--month',
    '2026-09',
    '--offline',
    'studio-q',
    '--url',
    live.mcpUrl,
    '--state-file',
    stateFile,
  ]);
  assert.equal(await bad.exited, 1);
  assert.match(bad.stderr(), /RFL_UNKNOWN_ROOM: Unknown room studio-q/);

  const nobody = reflow(['call', ...CALL, '--url', 'http://127.0.0.1:9/mcp', '--state-file', stateFile]);
  assert.equal(await nobody.exited, 1);
  assert.match(nobody.stderr(), /Could not reach http:\/\/127\.0\.0\.1:9\/mcp/);

  // Cancelled from another process while the first one waits.
  const queued = await server(join(dir, 'queued.db'), { WORKERS: '0', POLL_INTERVAL_MS: '100' });
  t.after(() => queued.close());
  const waiting = reflow(['call', ...CALL, '--url', queued.mcpUrl, '--state-file', stateFile]);
  const taskId = await until('the waiting task', () => waiting.stderr().match(/Task (tsk_[0-9a-f]+)/)?.[1], 90_000);
  const cancel = reflow(['cancel', taskId, '--state-file', stateFile]);
  assert.equal(await cancel.exited, 0, cancel.stderr());
  assert.match(cancel.stdout(), new RegExp(`Task ${taskId} cancelled`));
  assert.equal(await waiting.exited, 3);
  assert.match(waiting.stderr(), /was cancelled; nothing was moved/);

  // A task whose time-to-live passes while the client waits.
  const shortLived = await server(join(dir, 'short.db'), {
    WORKERS: '0',
    POLL_INTERVAL_MS: '100',
    TASK_TTL_MS: '1000',
  });
  t.after(() => shortLived.close());
  const expiring = reflow([
    'call',
    '--month',
    '2026-09',
    '--offline',
    'studio-c',
    '--url',
    shortLived.mcpUrl,
    '--state-file',
    stateFile,
    '--json',
  ]);
  assert.equal(await expiring.exited, 4, expiring.stderr());
  assert.equal(JSON.parse(expiring.stdout().trim()).status, 'expired');

  // The server goes away while the client waits: it gives up after five failed polls, exit 6, and
  // the task stays unfinished in the state file for `reflow resume`.
  const vanishing = await server(join(dir, 'vanishing.db'), { WORKERS: '0', POLL_INTERVAL_MS: '100' });
  const orphan = reflow(['call', ...CALL, '--url', vanishing.mcpUrl, '--state-file', stateFile]);
  await until('the orphan task', () => orphan.stderr().match(/Task (tsk_[0-9a-f]+)/)?.[1]);
  await vanishing.close();
  assert.equal(await orphan.exited, 6, orphan.stderr());
  assert.match(orphan.stderr(), /server unreachable .*resume with: reflow resume tsk_/);

  const state = JSON.parse(readFileSync(stateFile, 'utf8')) as StateDoc;
  assert.deepEqual(state.tasks.map((x) => x.status).sort(), ['cancelled', 'completed', 'expired', 'working']);

  // Asked of a server that does not know it (a wrong URL here; a wrong token reads the same), the
  // task is "not found", not expired: the error is reported and the handle stays resumable.
  const orphanId = state.tasks.find((x) => x.status === 'working')!.taskId;
  const elsewhere = reflow(['resume', orphanId, '--url', live.mcpUrl, '--state-file', stateFile]);
  assert.equal(await elsewhere.exited, 1, elsewhere.stderr());
  assert.match(elsewhere.stderr(), /Task not found/);
  const after = JSON.parse(readFileSync(stateFile, 'utf8')) as StateDoc;
  assert.equal(after.tasks.find((x) => x.taskId === orphanId)!.status, 'working');
});
