// tasks/get (and 2025-11-25's tasks/list) answered directly, without a per-request MCP server, must
// be what an SDK-only server answers on the same data, in every state a task can be in; anything the
// direct path is unsure of still goes through the SDK. The shared tests run in each protocol era
// (ERAS): a 2026-07-28 poll declares the Tasks extension in its _meta and names its task in the
// Mcp-Name header; a 2025-11-25 one is the bytes a TS SDK 1.x client sends, compared byte for byte.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ELICITING_CLIENT } from '../helpers/approval-helper.ts';
import { mcpBody, mcpHeaders } from '../../harness/mcp-wire.ts';
import { legacyMcpBody, legacyMcpHeaders } from '../../harness/mcp-wire-2025.ts';
import { PROTOCOL_VERSION, rpc, startTestServer, waitForTaskStatus, type TestServer } from '../helpers/test-server.ts';
import { requestsCounted } from './direct-answer-checks.ts';
import { closeRawAgent, rawPost, type RawResponse } from '../helpers/raw-http.ts';

const SEPT = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20' };
const ALICE = 'tok-alice-0123456789';
const BOB = 'tok-bob-0123456789';
const TOKENS = { AUTH_TOKENS: `alice:client:${ALICE},bob:client:${BOB}` };
/** The headers that say what the answer is (framing — chunked or content-length — and the date aside). */
const ANSWER_HEADERS = ['content-type', 'cache-control', 'connection', 'x-accel-buffering', 'mcp-session-id'];

after(() => closeRawAgent());

type Options = { token?: string; headers?: Record<string, string> };
/** A request the direct path leaves to the SDK; `invalid`: not a valid poll at all, so never answered as one. */
type Form = { body: unknown; headers?: Record<string, string>; invalid?: true };

/** What a test needs to know of a protocol era to send a poll and compare its answers. */
interface Era {
  version: string;
  /** A JSON-RPC request as the era's client writes it (no params member when `params` is undefined). */
  request: (
    method: string,
    params: Record<string, unknown> | undefined,
    id?: number | string,
  ) => Record<string, unknown>;
  /** Posts `body` (a string as it is) with the era's headers. */
  post: (server: TestServer, body: unknown, options?: Options) => Promise<RawResponse>;
  /** What must be the same in the direct answer and the SDK's: the status and JSON; in 2025-11-25 the bytes, headers included. */
  comparable: (res: RawResponse) => unknown;
  /** The method label /metrics gives a request through the SDK: its Mcp-Method header's, else "other". */
  sdkLabel: string;
  /** The status of a task whose tool result has isError, as the era's tasks/get shows it. */
  toolErrorStatus: string;
  /** Requests around a plain poll of `taskId` that the direct path leaves to the SDK, by label. */
  notDirect: (taskId: string, poll: Record<string, unknown>) => Record<string, Form>;
}

const era2026: Era = {
  version: PROTOCOL_VERSION,
  request: (method, params, id = 1) => JSON.parse(mcpBody(method, params ?? {}, { id })),
  post: (server, body, options = {}) => {
    const { method, params } = body as { method?: string; params?: { taskId?: unknown } };
    const name = typeof params?.taskId === 'string' ? params.taskId : undefined;
    return rawPost(
      server.mcpUrl,
      {
        ...mcpHeaders(method ?? 'tasks/get', name),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...options.headers,
      },
      typeof body === 'string' ? body : JSON.stringify(body),
    );
  },
  comparable: (res) => ({ status: res.status, body: res.json ?? res.text }),
  sdkLabel: 'tasks/get',
  toolErrorStatus: 'completed',
  notDirect: (_taskId, poll) => ({
    'an extra top-level member': { body: { ...poll, extra: true }, invalid: true },
    'result beside method': { body: { ...poll, result: {} }, invalid: true },
    'error beside method': { body: { ...poll, error: { code: 1, message: 'x' } }, invalid: true },
    'a fractional id': { body: { ...poll, id: 1.5 }, invalid: true },
    'an id past the safe integers': { body: { ...poll, id: 1e300 }, invalid: true },
  }),
};

const era2025: Era = {
  version: '2025-11-25',
  request: (method, params, id = 7) => JSON.parse(legacyMcpBody(method, params, id)),
  post: (server, body, options = {}) =>
    rawPost(
      server.mcpUrl,
      {
        ...legacyMcpHeaders(),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...options.headers,
      },
      typeof body === 'string' ? body : JSON.stringify(body),
    ),
  comparable: (res) => ({
    status: res.status,
    headers: Object.fromEntries(ANSWER_HEADERS.map((name) => [name, res.headers[name]])),
    text: res.text,
  }),
  // A 2025-11-25 client sends no Mcp-Method header.
  sdkLabel: 'other',
  // 2025-11-25 shows both as failed: a tool result with isError, and a JSON-RPC error.
  toolErrorStatus: 'failed',
  notDirect: (taskId, poll) => {
    const request = era2025.request;
    return {
      'an unknown task': { body: request('tasks/get', { taskId: 'tsk_does_not_exist' }) },
      'an extra top-level member': { body: { ...poll, extra: true } },
      'result beside method': { body: { ...poll, result: {} } },
      'error beside method': { body: { ...poll, error: { code: 1, message: 'x' } } },
      'a fractional id': { body: request('tasks/get', { taskId }, 1.5) },
      'an id past the safe integers': { body: request('tasks/get', { taskId }, 1e300) },
      'a null id': { body: { ...poll, id: null } },
      'no params': { body: request('tasks/get', undefined) },
      'an empty task id': { body: request('tasks/get', { taskId: '' }) },
      'a numeric task id': { body: request('tasks/get', { taskId: 42 }) },
      'an extra parameter': { body: request('tasks/get', { taskId, 'x-trace': 'compare' }) },
      'a _meta in params': { body: request('tasks/get', { taskId, _meta: { progressToken: 1 } }) },
      'a 2026 envelope claim': {
        body: request('tasks/get', { taskId, _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
      },
      'jsonrpc 1.0': { body: { ...poll, jsonrpc: '1.0' } },
      'a batch': { body: [poll] },
      'malformed JSON': { body: '{"method":"tasks/get",' },
      'an Mcp-Method header': { body: poll, headers: { 'mcp-method': 'tasks/get' } },
      'an Mcp-Name header': { body: poll, headers: { 'mcp-name': taskId } },
      'an Mcp-Session-Id header': { body: poll, headers: { 'mcp-session-id': 'sess-1' } },
      'an earlier protocol version': { body: poll, headers: { 'mcp-protocol-version': '2025-06-18' } },
      'an unknown protocol version': { body: poll, headers: { 'mcp-protocol-version': '2024-01-01' } },
      'Accept without text/event-stream': { body: poll, headers: { accept: 'application/json' } },
      'a text/plain body': { body: poll, headers: { 'content-type': 'text/plain' } },
    };
  },
};

const ERAS = [era2026, era2025];

/**
 * The same data served twice: the direct path on, and every request through the SDK. Both accept
 * only (WORKERS=0), so neither runs a task and both give a queued task the same poll interval.
 * On `databasePath` (another server's data, left in place) or on a fresh database.
 */
async function serverPair(env: Record<string, string>, databasePath?: string) {
  const direct = await startTestServer({ ...env, WORKERS: '0' }, databasePath);
  const sdkOnly = await startTestServer({ ...env, WORKERS: '0', MCP_FAST_TASKS_GET: 'false' }, direct.databasePath);
  return {
    direct,
    sdkOnly,
    close: async () => {
      await sdkOnly.close({ keepDatabase: true });
      await direct.close({ keepDatabase: databasePath !== undefined });
    },
  };
}
type Pair = Awaited<ReturnType<typeof serverPair>>;

const directCount = (server: TestServer, method: string) => requestsCounted(server.url, method, 'direct');

/** Sends the same request to both servers; asserts the era's view of the answers is the same and returns the direct one. */
async function sameOnBoth(era: Era, pair: Pair, label: string, body: unknown, options: Options = {}) {
  const direct = await era.post(pair.direct, body, options);
  const viaSdk = await era.post(pair.sdkOnly, body, options);
  assert.deepEqual(
    era.comparable(direct),
    era.comparable(viaSdk),
    `${label}: the direct answer differs from the SDK's`,
  );
  return direct;
}

for (const era of ERAS) {
  test(`${era.version}: tasks/get in every state is the SDK-only server's answer, and the SDK's on the same server`, async (t) => {
    // The tasks are brought to their states by a server with workers; the pair then serves its data.
    const producer = await startTestServer({ ...TOKENS, MCP_CONFORMANCE_FIXTURES: '1' });
    let pair: Pair | undefined;
    // The pair first: the producer's close removes the database.
    t.after(async () => {
      await pair?.close();
      await producer.close();
    });
    const url = producer.mcpUrl;
    const alice = { token: ALICE };
    const start = async (name: string, args: Record<string, unknown>) => {
      const { body } = await rpc(
        url,
        'tools/call',
        { name, arguments: args },
        { ...alice, capabilities: ELICITING_CLIENT },
      );
      assert.equal(body.result?.resultType, 'task', JSON.stringify(body));
      return body.result.taskId as string;
    };
    const completed = await start('reflow_month', { ...SEPT, dry_run: true });
    // A gated reflow parks holding its rooms and days: a real one over the same days queues behind it.
    const parked = await start('reflow_month', { ...SEPT, confirm: true });
    await waitForTaskStatus(url, parked, ['input_required'], 60_000, alice);
    const queued = await start('reflow_month', { ...SEPT, from: '2026-09-08' });
    const cancelled = await start('reflow_month', { ...SEPT, from: '2026-09-09' });
    assert.equal((await rpc(url, 'tasks/cancel', { taskId: cancelled }, alice)).body.result?.resultType, 'complete');
    // A tool result with isError, and a JSON-RPC error.
    const toolError = await start('failing_job', {});
    const protocolError = await start('protocol_error_job', {});
    await waitForTaskStatus(url, completed, ['completed'], 60_000, alice);
    await waitForTaskStatus(url, toolError, ['completed'], 60_000, alice);
    await waitForTaskStatus(url, protocolError, ['failed'], 60_000, alice);
    pair = await serverPair({ ...TOKENS, MCP_CONFORMANCE_FIXTURES: '1' }, producer.databasePath);

    const before = await directCount(pair.direct, 'tasks/get');
    const sdkBefore = await requestsCounted(pair.direct.url, era.sdkLabel, 'sdk');
    const states: [string, string][] = [
      [completed, 'completed'],
      [parked, 'input_required'],
      [queued, 'working'],
      [cancelled, 'cancelled'],
      [toolError, era.toolErrorStatus],
      [protocolError, 'failed'],
    ];
    for (const [i, [taskId, status]] of states.entries()) {
      // Integer and string ids alike.
      const id = i % 2 ? `poll-${i}` : i;
      const answer = await sameOnBoth(era, pair, status, era.request('tasks/get', { taskId }, id), alice);
      assert.equal(answer.status, 200);
      assert.equal(answer.json?.result?.status, status, answer.text);
      assert.equal(answer.json?.id, id);
      // An extra parameter the direct path does not take: the SDK answers (its params schema lets it through), the same.
      const viaSdk = await era.post(pair.direct, era.request('tasks/get', { taskId, 'x-trace': 'compare' }, id), alice);
      assert.deepEqual(
        viaSdk.json,
        answer.json,
        `${status}: the direct answer differs from the SDK's on the same server`,
      );
    }
    assert.equal(
      (await directCount(pair.direct, 'tasks/get')) - before,
      states.length,
      'each plain poll was answered directly',
    );
    assert.equal(
      (await requestsCounted(pair.direct.url, era.sdkLabel, 'sdk')) - sdkBefore,
      states.length,
      'each poll with an extra parameter went through the SDK',
    );
    assert.equal(await directCount(pair.sdkOnly, 'tasks/get'), 0, 'the SDK-only server answered none directly');
  });

  test(`${era.version}: what the direct path does not answer around a plain poll keeps the SDK answer`, async (t) => {
    const pair = await serverPair(TOKENS);
    t.after(() => pair.close());
    const alice = { token: ALICE };
    const created = await rpc(
      pair.direct.mcpUrl,
      'tools/call',
      { name: 'reflow_month', arguments: { ...SEPT, dry_run: true } },
      alice,
    );
    const taskId = created.body.result.taskId as string;
    const poll = era.request('tasks/get', { taskId });
    // A valid poll first, as a polling client sends them: whatever the direct path learns from it
    // must not carry over to a malformed request with the same headers and envelope.
    assert.ok((await sameOnBoth(era, pair, 'a plain poll', poll, alice)).json?.result);
    const before = await directCount(pair.direct, 'tasks/get');
    for (const [label, form] of Object.entries(era.notDirect(taskId, poll))) {
      const answer = await sameOnBoth(era, pair, label, form.body, { ...alice, headers: form.headers });
      if (form.invalid)
        assert.notEqual(answer.json?.result?.status, 'working', `${label}: must not be answered as a valid poll`);
    }
    assert.equal(await directCount(pair.direct, 'tasks/get'), before, 'none was answered directly');
  });
}

test(`${PROTOCOL_VERSION}: what the direct path does not answer keeps the SDK answer: unknown task, another owner, no extension, mismatched header, wrong media type`, async (t) => {
  const server = await startTestServer(TOKENS);
  t.after(() => server.close());
  const alice = { token: ALICE };
  const created = await rpc(
    server.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: { ...SEPT, dry_run: true } },
    alice,
  );
  const taskId = created.body.result.taskId as string;
  assert.equal((await rpc(server.mcpUrl, 'tasks/get', { taskId }, alice)).body.result?.taskId, taskId);

  const unknown = await rpc(server.mcpUrl, 'tasks/get', { taskId: 'tsk_does_not_exist' }, alice);
  assert.equal(unknown.body.error?.code, -32602);
  const otherOwner = await rpc(server.mcpUrl, 'tasks/get', { taskId }, { token: BOB });
  assert.deepEqual(otherOwner.body.error, unknown.body.error && { ...unknown.body.error, data: { taskId } });
  const undeclared = await rpc(server.mcpUrl, 'tasks/get', { taskId }, { ...alice, tasks: false });
  assert.equal(undeclared.body.error?.code, -32021, JSON.stringify(undeclared.body));
  const mismatched = await rpc(
    server.mcpUrl,
    'tasks/get',
    { taskId },
    { ...alice, headers: { 'mcp-name': 'tsk_other' } },
  );
  assert.equal(mismatched.status, 400);
  assert.equal(mismatched.body.error?.code, -32020, JSON.stringify(mismatched.body));
  const plainText = await rpc(
    server.mcpUrl,
    'tasks/get',
    { taskId },
    { ...alice, headers: { 'content-type': 'text/plain' } },
  );
  assert.equal(plainText.status, 415, "the media type is the SDK's to refuse, as for any other request");
});

test('2025-11-25: tasks/list pages: first page, cursor page, only the caller’s tasks — byte for byte the SDK-only answer', async (t) => {
  const pair = await serverPair({
    ...TOKENS,
    MAX_ACTIVE_TASKS_PER_PRINCIPAL: '100',
    TASK_RATE_BURST: '100',
  });
  t.after(() => pair.close());
  const url = pair.direct.mcpUrl;
  // More than a page (50) of alice's tasks, queued (no workers); distinct inputs, so distinct tasks.
  const aliceTasks: string[] = [];
  for (let day = 1; aliceTasks.length < 53; day++)
    for (const span of [0, 1, 2]) {
      const args = {
        ...SEPT,
        from: `2026-09-${String(day).padStart(2, '0')}`,
        to: `2026-09-${String(day + span).padStart(2, '0')}`,
        dry_run: true,
      };
      const { body } = await rpc(url, 'tools/call', { name: 'reflow_month', arguments: args }, { token: ALICE });
      assert.equal(body.result?.resultType, 'task', JSON.stringify(body));
      aliceTasks.push(body.result.taskId);
    }
  const bobTask = (
    await rpc(url, 'tools/call', { name: 'reflow_month', arguments: { ...SEPT, dry_run: true } }, { token: BOB })
  ).body.result.taskId as string;

  const before = await directCount(pair.direct, 'tasks/list');
  const first = await sameOnBoth(era2025, pair, 'first page', era2025.request('tasks/list', {}), { token: ALICE });
  const firstIds = first.json.result.tasks.map((task: { taskId: string }) => task.taskId);
  assert.equal(firstIds.length, 50);
  assert.ok(first.json.result.nextCursor, first.text);
  await sameOnBoth(era2025, pair, 'first page, no params', era2025.request('tasks/list', undefined, 'list-1'), {
    token: ALICE,
  });
  const next = await sameOnBoth(
    era2025,
    pair,
    'cursor page',
    era2025.request('tasks/list', { cursor: first.json.result.nextCursor }),
    {
      token: ALICE,
    },
  );
  const nextIds = next.json.result.tasks.map((task: { taskId: string }) => task.taskId);
  assert.equal(next.json.result.nextCursor, undefined, 'the last page has no cursor');
  assert.deepEqual(new Set([...firstIds, ...nextIds]), new Set(aliceTasks), 'every task of alice, once');
  assert.equal(firstIds.length + nextIds.length, aliceTasks.length);
  const bobs = await sameOnBoth(era2025, pair, "bob's page", era2025.request('tasks/list', {}), { token: BOB });
  assert.deepEqual(
    bobs.json.result.tasks.map((task: { taskId: string }) => task.taskId),
    [bobTask],
    'only the caller’s own tasks',
  );
  assert.equal((await directCount(pair.direct, 'tasks/list')) - before, 4, 'each page was answered directly');

  // A cursor it did not issue, and another principal's task: the SDK answers (an error), as it would.
  const listed = await directCount(pair.direct, 'tasks/list');
  const polled = await directCount(pair.direct, 'tasks/get');
  const badCursor = await sameOnBoth(
    era2025,
    pair,
    'bad cursor',
    era2025.request('tasks/list', { cursor: 'not-a-cursor' }),
    {
      token: ALICE,
    },
  );
  assert.equal(badCursor.json?.error?.code, -32602, badCursor.text);
  const othersTask = await sameOnBoth(
    era2025,
    pair,
    "another's task",
    era2025.request('tasks/get', { taskId: bobTask }),
    {
      token: ALICE,
    },
  );
  assert.equal(othersTask.json?.error?.message, 'Task not found', othersTask.text);
  assert.equal(await directCount(pair.direct, 'tasks/list'), listed, 'the bad cursor went through the SDK');
  assert.equal(await directCount(pair.direct, 'tasks/get'), polled, "another's task went through the SDK");
});

test('2025-11-25: tasks/list is not answered directly where requestors are not told apart (it is not served)', async (t) => {
  const pair = await serverPair({});
  t.after(() => pair.close());
  const answer = await sameOnBoth(era2025, pair, 'tasks/list, no tokens', era2025.request('tasks/list', {}));
  assert.equal(answer.json?.error?.code, -32601, answer.text);
  assert.equal(await directCount(pair.direct, 'tasks/list'), 0);
});

test('a TS SDK 1.x client (2025-11-25) gets and lists its tasks through the direct path', async (t) => {
  const server = await startTestServer({ ...TOKENS, WORKERS: '0' });
  t.after(() => server.close());
  const created = await rpc(
    server.mcpUrl,
    'tools/call',
    { name: 'reflow_month', arguments: { ...SEPT, dry_run: true } },
    { token: ALICE },
  );
  const taskId = created.body.result.taskId as string;
  const client = new Client({ name: 'sdk-1x', version: '0.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(server.mcpUrl), {
      requestInit: { headers: { authorization: `Bearer ${ALICE}` } },
    }),
  );
  t.after(() => client.close());
  assert.equal(client.getServerVersion()?.name, 'studio-reflow');
  const got = await client.experimental.tasks.getTask(taskId);
  assert.equal(got.taskId, taskId);
  assert.equal(got.status, 'working');
  const listed = await client.experimental.tasks.listTasks();
  assert.deepEqual(
    listed.tasks.map((task) => task.taskId),
    [taskId],
  );
  assert.equal(await directCount(server, 'tasks/get'), 1, "the client's poll was answered directly");
  assert.equal(await directCount(server, 'tasks/list'), 1, "the client's listing was answered directly");
});
