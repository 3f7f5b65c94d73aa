// A 2025-11-25 session's stream on node A, its task run on node B (only B has workers): A pushes
// notifications/tasks/status for each change B writes to the shared PostgreSQL database, up to
// completed. The session lives on A alone: B does not know its id (404), while polling the same
// task without a session works on either node. That a progress change is pushed is forced, not
// hoped for: B is frozen (SIGSTOP) once its progress is in the database, until A has pushed it.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ClusterNode, claimOf, freePort, rows, seededClusterDatabase, type ClusterDatabase } from './cluster-helper.ts';
import { RawLegacySession, statusNotes } from '../../harness/legacy-session.ts';
import { SLOW_REFLOW, slowMonthSeedFile } from '../helpers/slow-month.ts';

let db: ClusterDatabase;
let A: ClusterNode, B: ClusterNode;
const cleanups: (() => Promise<void>)[] = [];

before(async () => {
  // The slow month: B must still be solving when it is frozen (the demo month's solve can end first).
  db = await seededClusterDatabase(slowMonthSeedFile());
  cleanups.push(() => db.drop());
  A = new ClusterNode('A', await freePort(), db.url, { WORKERS: '0', POLL_INTERVAL_MS: '100' });
  B = new ClusterNode('B', await freePort(), db.url, { WORKERS: '1', POLL_INTERVAL_MS: '100' });
  cleanups.push(async () => {
    for (const node of [A, B]) await node.kill();
  });
  await Promise.all([A, B].map((node) => node.start()));
});
after(async () => {
  for (const undo of cleanups.reverse()) await undo();
});

test('cluster: a session on A hears notifications/tasks/status up to completed for its task run on B', async (t) => {
  const session = new RawLegacySession(A.mcpUrl);
  await session.open();
  assert.ok(session.sessionId, 'A issued a session id');
  const stream = await session.stream();
  t.after(() => stream.close());
  assert.equal(stream.status, 200);

  const created = await session.post('tools/call', { name: 'reflow_month', arguments: SLOW_REFLOW, task: {} });
  const taskId = created.body.result.task.taskId as string;
  assert.match(taskId, /^tsk_/);
  const queued: string = created.body.result.task.statusMessage;
  // B's first progress in the database (the claim's and the solve's messages), then B frozen so
  // the task cannot run on to completed before A has read and pushed it.
  const row = async () =>
    (await rows<{ status: string; status_message: string }>(db, 'SELECT * FROM tasks WHERE id = $1', [taskId]))[0];
  for (const deadline = Date.now() + 60_000; (await row()).status_message === queued; await sleep(5))
    assert.ok(Date.now() < deadline, 'B wrote progress within 60 s');
  B.process!.freeze();
  assert.equal((await row()).status, 'working', 'B was frozen while the task was still running');
  let progress: any;
  try {
    progress = await stream.until(
      (m) =>
        m.method === 'notifications/tasks/status' &&
        m.params.taskId === taskId &&
        m.params.status === 'working' &&
        m.params.statusMessage !== queued,
      30_000,
    );
  } finally {
    B.process!.thaw();
  }
  assert.ok(progress, 'progress written on B was pushed from A');
  const done = await stream.until(
    (m) => m.method === 'notifications/tasks/status' && m.params.taskId === taskId && m.params.status === 'completed',
    90_000,
  );
  const notes = statusNotes(stream, taskId);
  assert.equal(notes.at(-1), done.params, 'the terminal notification is the last');

  const claim = await claimOf(db, taskId);
  assert.equal(claim?.by.endsWith(`:${B.process!.pid}`), true, `B ran it (claimed by ${claim?.by})`);

  // The session is A's: B does not know it (404: the client opens another), but a poll needs no
  // session and is answered on either node.
  const onB = new RawLegacySession(B.mcpUrl);
  onB.sessionId = session.sessionId;
  assert.equal((await onB.stream()).status, 404);
  assert.equal((await onB.post('tasks/get', { taskId })).status, 404);
  const polled = await new RawLegacySession(B.mcpUrl).post('tasks/get', { taskId });
  assert.equal(polled.body.result.status, 'completed');
});
