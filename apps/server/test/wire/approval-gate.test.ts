// The approval gate of reflow_month {confirm: true}, over a real socket: the task solves, parks in
// input_required with one elicitation summarising the plan, and applies only on yes — re-checking
// the bookings at apply time — while wrong keys, a restart and a decline change nothing.
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { GetTaskResultV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import type { BookingStatus } from '@reflow/db';
import {
  openTestStore,
  startTestServer,
  taskCount,
  TASKS,
  waitForTaskStatus,
  type TestServer,
} from '../helpers/test-server.ts';
import { call, ELICITING_CLIENT } from '../helpers/approval-helper.ts';

const GATED = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', confirm: true };

let servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers.reverse()) await s.close();
  servers = [];
});
async function server(databasePath?: string) {
  const s = await startTestServer({}, databasePath);
  servers.push(s);
  return s;
}

/** Starts a gated reflow and waits for the approval question; returns the task id, its one key, and the question. */
async function parkedReflow(s: TestServer) {
  const { body } = await call(s.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: GATED });
  assert.equal(body.result?.resultType, 'task', JSON.stringify(body));
  const parked = await waitForTaskStatus(s.mcpUrl, body.result.taskId, ['input_required', 'completed', 'failed']);
  assert.equal(parked.status, 'input_required', JSON.stringify(parked));
  assert.ok(GetTaskResultV2Schema.safeParse({ ...parked, resultType: 'complete' }).success, JSON.stringify(parked));
  const keys = Object.keys(parked.inputRequests);
  assert.equal(keys.length, 1);
  return { taskId: body.result.taskId as string, key: keys[0], request: parked.inputRequests[keys[0]], parked };
}

/** Bookings in `status` overlapping [from, to), in `roomId` when given, read through the server's store. */
const bookingsIn = async (s: TestServer, status: BookingStatus, roomId?: string, from = -8.64e15, to = 8.64e15) =>
  (
    await s.services.store.bookings.overlapping({
      from,
      to,
      statuses: [status],
      ...(roomId ? { roomIds: [roomId] } : {}),
    })
  ).length;
const studioB = (s: TestServer) => bookingsIn(s, 'confirmed', 'studio-b');
const auditedMoves = async (s: TestServer, taskId: string) => (await s.services.store.audit.movesOf(taskId)).length;

test('accept: the plan is summarised, a wrong key is ignored, a malformed answer refused, yes applies it', async () => {
  const s = await server();
  const before = await studioB(s);
  const { taskId, key, request, parked } = await parkedReflow(s);
  assert.equal(request.method, 'elicitation/create');
  assert.match(request.params.message, /^Apply \d+ moves, \d+ bookings? unresolved\? \(reflow studio-b, 7–20 Sep\)$/);
  assert.deepEqual(request.params.requestedSchema.required, ['apply']);
  assert.match(parked.statusMessage, /^Waiting for approval: Apply/);
  assert.equal(await studioB(s), before, 'nothing is moved while waiting');

  const wrong = await call(s.mcpUrl, 'tasks/update', {
    taskId,
    inputResponses: {
      'r9-apply': { action: 'accept', content: { apply: true } },
      apply: { action: 'accept', content: { apply: true } },
    },
  });
  assert.equal(wrong.body.result?.resultType, 'complete', JSON.stringify(wrong.body));
  assert.equal(wrong.body.result.status, undefined, 'an empty ack, not a task');
  // A malformed answer to the right key is refused whole and records nothing.
  const malformed = await call(s.mcpUrl, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'maybe' } } });
  assert.equal(malformed.body.error?.code, -32602);
  assert.match(malformed.body.error.message, new RegExp(`inputResponses\\.${key}\\.action`));
  const still = await call(s.mcpUrl, 'tasks/get', { taskId });
  assert.equal(still.body.result.status, 'input_required');
  assert.deepEqual(Object.keys(still.body.result.inputRequests), [key]);

  const ack = await call(s.mcpUrl, 'tasks/update', {
    taskId,
    inputResponses: { [key]: { action: 'accept', content: { apply: true } } },
  });
  assert.equal(ack.body.result?.resultType, 'complete');
  const done = await waitForTaskStatus(s.mcpUrl, taskId, ['completed', 'failed']);
  const sc = done.result.structuredContent;
  assert.deepEqual([done.status, sc.applied, sc.approval], ['completed', true, 'accepted']);
  assert.equal(sc.moved + sc.unresolved, 142);
  assert.match(
    request.params.message,
    new RegExp(`^Apply ${sc.moved} moves, ${sc.unresolved} bookings? unresolved`),
    'the question told the truth',
  );
  assert.equal(await auditedMoves(s, taskId), sc.moved);
  assert.equal((await studioB(s)) < before, true);
  // An answer after the end changes nothing and is still acknowledged.
  const late = await call(s.mcpUrl, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'decline' } } });
  assert.equal(late.body.result?.resultType, 'complete');
  assert.equal((await call(s.mcpUrl, 'tasks/get', { taskId })).body.result.status, 'completed');
});

test('decline: the task completes with applied:false and the month is untouched', async () => {
  const s = await server();
  const before = await studioB(s);
  const { taskId, key } = await parkedReflow(s);
  await call(s.mcpUrl, 'tasks/update', { taskId, inputResponses: { [key]: { action: 'decline' } } });
  const done = await waitForTaskStatus(s.mcpUrl, taskId, ['completed', 'failed']);
  const sc = done.result.structuredContent;
  assert.deepEqual([done.status, sc.applied, sc.approval], ['completed', false, 'declined']);
  assert.ok(sc.moved > 0, 'the result still shows the plan that was declined');
  assert.match(done.result.content[0].text, /^Not applied: the plan was declined/);
  assert.equal(await auditedMoves(s, taskId), 0);
  assert.equal(await studioB(s), before);
  assert.equal(await bookingsIn(s, 'needs_rebooking'), 0);
});

test('restart while waiting: the question, its key and the solved plan survive; yes applies after the restart', async () => {
  const first = await server();
  const { taskId, key, request } = await parkedReflow(first);
  servers = servers.filter((x) => x !== first);
  await first.close({ keepDatabase: true });
  const second = await server(first.databasePath);
  const again = await call(second.mcpUrl, 'tasks/get', { taskId });
  assert.equal(again.body.result.status, 'input_required');
  assert.deepEqual(again.body.result.inputRequests, { [key]: request });
  await call(second.mcpUrl, 'tasks/update', {
    taskId,
    inputResponses: { [key]: { action: 'accept', content: { apply: true } } },
  });
  const done = await waitForTaskStatus(second.mcpUrl, taskId, ['completed', 'failed']);
  assert.deepEqual([done.status, done.result.structuredContent.applied], ['completed', true]);
  assert.equal(await auditedMoves(second, taskId), done.result.structuredContent.moved);
});

test('a parked reflow holds its days: an overlapping reflow waits for the answer, then plans from what was applied', async () => {
  const s = await server();
  const { taskId: gated, key, request } = await parkedReflow(s);
  // The gated plan sends bookings into podcast-suite; now podcast-suite goes offline for the same days.
  assert.match(JSON.stringify(request), /Apply \d+ moves/);
  const { body } = await call(s.mcpUrl, 'tools/call', {
    name: 'reflow_month',
    arguments: { month: '2026-09', offline_rooms: ['podcast-suite'], from: '2026-09-07', to: '2026-09-20' },
  });
  const later = body.result.taskId as string;
  await call(s.mcpUrl, 'tasks/update', {
    taskId: gated,
    inputResponses: { [key]: { action: 'accept', content: { apply: true } } },
  });
  const first = await waitForTaskStatus(s.mcpUrl, gated, ['completed', 'failed']);
  const second = await waitForTaskStatus(s.mcpUrl, later, ['completed', 'failed']);
  assert.deepEqual(
    [first.status, first.result.structuredContent.applied, second.status],
    ['completed', true, 'completed'],
  );
  // Event ids grow in the order the events were written, across tasks.
  const event = async (taskId: string, kind: string) => {
    const ids = (await s.services.store.tasks.events(taskId)).filter((e) => e.kind === kind).map((e) => e.id);
    assert.ok(ids.length > 0, `${taskId} has a ${kind} event`);
    return Math.min(...ids);
  };
  assert.ok(
    (await event(later, 'claimed')) > (await event(gated, 'completed')),
    'the overlapping reflow started only after the approved one applied',
  );
  // Sep 7 00:00 to Sep 21 00:00 in Europe/London (BST): nothing the approved plan moved in is left in podcast-suite.
  const left = await bookingsIn(
    s,
    'confirmed',
    'podcast-suite',
    Date.parse('2026-09-06T23:00:00Z'),
    Date.parse('2026-09-20T23:00:00Z'),
  );
  assert.equal(left, 0);
});

test('a booking changed while waiting is re-checked at apply time: reported, not overwritten', async () => {
  const s = await server();
  const { taskId, key } = await parkedReflow(s);
  // Someone edits a booking the plan moves while the question is open (a second connection, as another process would).
  const other = await openTestStore(s.databasePath);
  let changedId: string;
  let planned: number;
  try {
    const parkedState = (await other.inputs.get(taskId))!.state as { plan: { moves: { bookingId: string }[] } };
    planned = parkedState.plan.moves.length;
    changedId = parkedState.plan.moves[0].bookingId;
    const booking = (await other.bookings.get(changedId))!;
    assert.equal(await other.bookings.setStatus(changedId, booking.version, 'cancelled'), true);
  } finally {
    await other.close();
  }
  await call(s.mcpUrl, 'tasks/update', {
    taskId,
    inputResponses: { [key]: { action: 'accept', content: { apply: true } } },
  });
  const done = await waitForTaskStatus(s.mcpUrl, taskId, ['completed', 'failed']);
  const sc = done.result.structuredContent;
  assert.equal(done.status, 'completed');
  assert.equal(sc.moved, planned - 1);
  const flagged = sc.unresolvedBookings.find((u: { bookingId: string }) => u.bookingId === changedId);
  assert.equal(flagged?.code, 'changed');
  const row = (await s.services.store.bookings.get(changedId))!;
  assert.deepEqual(
    { roomId: row.roomId, status: row.status },
    { roomId: 'studio-b', status: 'cancelled' },
    'the newer edit stands',
  );
});

test('confirm is asked only of clients that can answer: no elicitation is -32021, dry_run conflicts, no tasks extension is refused', async () => {
  const s = await server();
  const noElicitation = await call(
    s.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: GATED },
    { extensions: { [TASKS]: {} } },
  );
  assert.equal(noElicitation.status, 400);
  assert.equal(noElicitation.body.error?.code, -32021);
  assert.deepEqual(noElicitation.body.error.data.requiredCapabilities, { elicitation: { form: {} } });
  const both = await call(s.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: { ...GATED, dry_run: true } });
  assert.equal(both.body.result?.isError, true);
  assert.match(both.body.result.content[0].text, /RFL_CONFIRM_DRY_RUN/);
  assert.equal(await taskCount(s.services.store), 0, 'no refused call created a task');
  assert.ok(ELICITING_CLIENT.elicitation);
});

test('confirm: true from a client without the Tasks extension is -32021 (HTTP 400) naming the extension, and creates no task', async () => {
  const s = await server();
  const sync = await call(s.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: GATED }, { elicitation: {} });
  assert.equal(sync.status, 400, JSON.stringify(sync.body));
  assert.equal(sync.body.error?.code, -32021, JSON.stringify(sync.body));
  assert.deepEqual(sync.body.error.data.requiredCapabilities, { extensions: { [TASKS]: {} } });
  const count = await taskCount(s.services.store);
  assert.equal(count, 0, 'no task was created');
});

test('confirm: true from a client that declared only URL-mode elicitation is -32021 naming form mode, and creates no task', async () => {
  const s = await server();
  for (const elicitation of [{ url: {} }, { url: {}, other: {} }]) {
    const urlOnly = await call(
      s.mcpUrl,
      'tools/call',
      { name: 'reflow_month', arguments: GATED },
      { elicitation, extensions: { [TASKS]: {} } },
    );
    assert.equal(urlOnly.status, 400, JSON.stringify(urlOnly.body));
    assert.equal(urlOnly.body.error?.code, -32021, JSON.stringify(urlOnly.body));
    assert.deepEqual(urlOnly.body.error.data.requiredCapabilities, { elicitation: { form: {} } });
  }
  const count = await taskCount(s.services.store);
  assert.equal(count, 0, 'no task was created');
  // Form mode declared explicitly (or by the empty object, as the spec allows) is asked.
  const form = await call(
    s.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: GATED },
    { elicitation: { form: {}, url: {} }, extensions: { [TASKS]: {} } },
  );
  assert.equal(form.body.result?.resultType, 'task', JSON.stringify(form.body));
});
