// A 2025-11-25 client's create (tools/call with params.task) answered directly, without a
// per-request MCP server, must be the SDK path's answer byte for byte, headers included; anything
// the direct path is unsure of, and every refusal, still goes through the SDK. Two servers side by
// side: the default one, and one with the direct path off (MCP_FAST_TASK_CALLS=false), each sent the
// same bytes. Neither runs tasks (WORKERS=0), so both give a create the same status and poll interval.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { legacyMcpBody, legacyMcpHeaders } from '../../harness/mcp-wire-2025.ts';
import { startTestServer, type TestServer } from '../helpers/test-server.ts';
import { maskedAnswer, requestsCounted } from './direct-answer-checks.ts';
import { closeRawAgent, rawPost, type RawResponse } from '../helpers/raw-http.ts';

after(() => closeRawAgent());

const SEPT = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dry_run: true };
/** The headers that say what the answer is (framing — chunked or content-length — and the date aside). */
const ANSWER_HEADERS = ['content-type', 'cache-control', 'connection', 'x-accel-buffering', 'mcp-session-id'];

const callsCounted = (server: TestServer, path: 'direct' | 'sdk') => requestsCounted(server.url, 'tools/call', path);

/** What a client sees of an answer, with the values no two creates share (id, instants) masked. */
function seen(res: RawResponse) {
  const body = maskedAnswer(res.text);
  return { status: res.status, headers: Object.fromEntries(ANSWER_HEADERS.map((h) => [h, res.headers[h]])), body };
}

async function both(env: Record<string, string> = {}) {
  const direct = await startTestServer({ WORKERS: '0', ...env });
  const sdkOnly = await startTestServer({ WORKERS: '0', ...env, MCP_FAST_TASK_CALLS: 'false' });
  return { direct, sdkOnly, close: () => Promise.all([direct.close(), sdkOnly.close()]) };
}

const send = (server: TestServer, body: unknown, headers: Record<string, string> = {}) =>
  rawPost(server.mcpUrl, { ...legacyMcpHeaders(), ...headers }, typeof body === 'string' ? body : JSON.stringify(body));

/** A 2025-11-25 request in the member order a TS SDK 1.x client writes. */
const request = (params: Record<string, unknown>, id: number | string = 1) =>
  JSON.parse(legacyMcpBody('tools/call', params, id)) as Record<string, unknown>;

const create = (args: unknown, id: number | string = 1, task: unknown = {}) =>
  request({ name: 'reflow_month', arguments: args, task }, id);

test('a plain 2025-11-25 create is answered directly, with the SDK answer byte for byte, and the task is durable and deduplicated', async (t) => {
  const { direct, sdkOnly, close } = await both();
  t.after(close);
  const before = await callsCounted(direct, 'direct');
  const creates: [unknown, number | string, unknown][] = [
    [SEPT, 1, {}],
    [{ ...SEPT, from: '2026-09-08' }, 'string-id-7', {}],
    // The SDK accepts a requested ttl and LegacyTasks does not honour it: the engine's ttl, on both.
    [{ ...SEPT, from: '2026-09-09' }, 9_007_199_254_740_991, { ttl: 60_000 }],
    // `background` is reflow_month's own argument; a task-augmented call gets the task either way.
    [{ ...SEPT, from: '2026-09-10', background: false }, 0, { ttl: 1.5 }],
  ];
  for (const [args, id, task] of creates) {
    const answers = [];
    for (const server of [direct, sdkOnly]) answers.push(await send(server, create(args, id, task)));
    assert.deepEqual(seen(answers[0]), seen(answers[1]), `the direct answer to ${JSON.stringify(args)} differs`);
    assert.equal(answers[0].status, 200);
    assert.equal(answers[0].json.id, id);
    const created = answers[0].json.result?.task;
    assert.equal(created?.status, 'working', answers[0].text);
    assert.notEqual(created.ttl, (task as { ttl?: number }).ttl, 'the requested ttl is not the task’s');
    // Committed before the answer: the task is there when the answer arrives.
    const polled = await send(direct, JSON.parse(legacyMcpBody('tasks/get', { taskId: created.taskId }, 2)));
    assert.equal(polled.json.result?.taskId, created.taskId, polled.text);
  }
  assert.equal((await callsCounted(direct, 'direct')) - before, creates.length, 'each plain create went direct');
  assert.equal(await callsCounted(direct, 'sdk'), 0);
  assert.equal(await callsCounted(sdkOnly, 'direct'), 0, 'the comparison server never answers directly');

  // The same work again while the first is queued: the same task (the engine's dedupe), directly.
  const first = (await send(direct, create({ ...SEPT, from: '2026-09-11' }))).json.result.task.taskId;
  const again = (await send(direct, create({ ...SEPT, from: '2026-09-11' }, 2))).json.result.task.taskId;
  assert.equal(again, first);
  assert.equal((await callsCounted(direct, 'direct')) - before, creates.length + 2);
});

test('what the 2025-11-25 direct create does not answer keeps the SDK answer, byte for byte', async (t) => {
  const { direct, sdkOnly, close } = await both();
  t.after(close);
  const plain = create(SEPT);
  const params = plain.params as Record<string, unknown>;
  const forms: Record<string, { body: unknown; headers?: Record<string, string> }> = {
    'an unknown room (the use case refuses it)': { body: create({ ...SEPT, offline_rooms: ['studio-zz'] }) },
    'arguments the schema refuses': { body: create({ ...SEPT, month: 'September' }) },
    'an unknown argument (strict schema)': { body: create({ ...SEPT, colour: 'blue' }) },
    'confirm: true (only a 2026-07-28 task can carry it)': { body: create({ ...SEPT, dry_run: false, confirm: true }) },
    'no params.task, refused (the synchronous call)': {
      body: request({ name: 'reflow_month', arguments: { ...SEPT, month: '2026-13' } }),
    },
    'no params.task, background: true (the synchronous call answers at once)': {
      body: request({ name: 'reflow_month', arguments: { ...SEPT, from: '2026-09-12', background: true } }),
    },
    'a tool that is not a task tool': { body: request({ name: 'list_rooms', arguments: {}, task: {} }) },
    'an unknown tool': { body: request({ name: 'nope', arguments: {}, task: {} }) },
    'arguments that are not an object': { body: create(['x']) },
    'params.task that is not an object': { body: create(SEPT, 1, 'soon') },
    'a ttl that is not a number': { body: create(SEPT, 1, { ttl: '60000' }) },
    'an extra member in params.task': { body: create({ ...SEPT, from: '2026-09-13' }, 1, { ttl: 1000, x: 1 }) },
    'an extra parameter': { body: { ...plain, params: { ...params, extra: 1 } } },
    'a progress token': { body: { ...plain, params: { ...params, _meta: { progressToken: 'p1' } } } },
    'an extra top-level member': { body: { ...plain, extra: true } },
    'a fractional id': { body: create(SEPT, 1.5) },
    'a null id': { body: { ...plain, id: null } },
    'jsonrpc 1.0': { body: { ...plain, jsonrpc: '1.0' } },
    'a batch': { body: [plain] },
    'an Mcp-Session-Id header': { body: plain, headers: { 'mcp-session-id': 'sess-1' } },
    'an Mcp-Method header': { body: plain, headers: { 'mcp-method': 'tools/call' } },
    'an earlier protocol version': { body: plain, headers: { 'mcp-protocol-version': '2025-06-18' } },
    'Accept without text/event-stream': { body: plain, headers: { accept: 'application/json' } },
  };
  const before = await callsCounted(direct, 'direct');
  for (const [label, { body, headers }] of Object.entries(forms)) {
    const answers = [];
    for (const server of [direct, sdkOnly]) answers.push(seen(await send(server, body, headers)));
    assert.deepEqual(answers[0], answers[1], `${label}: the direct path answers differently from the SDK`);
  }
  assert.equal(await callsCounted(direct, 'direct'), before, 'none was answered directly');
});

test('a refused 2025-11-25 create (a creation limit) gets the SDK refusal, and writes nothing', async (t) => {
  const token = 'tok-alice-0123456789';
  const { direct, sdkOnly, close } = await both({
    AUTH_TOKENS: `alice:client:${token}`,
    MAX_ACTIVE_TASKS_PER_PRINCIPAL: '1',
  });
  t.after(close);
  const auth = { authorization: `Bearer ${token}` };
  const answers = [];
  for (const server of [direct, sdkOnly]) {
    const first = await send(server, create(SEPT), auth);
    assert.equal(first.json.result?.task?.status, 'working', first.text);
    answers.push(seen(await send(server, create({ ...SEPT, from: '2026-09-08' }, 2), auth)));
  }
  assert.deepEqual(answers[0], answers[1], 'the refusal differs');
  assert.match(answers[0].body, /RFL_TOO_MANY_TASKS/);
  for (const server of [direct, sdkOnly]) {
    const listed = await send(server, JSON.parse(legacyMcpBody('tasks/list', {}, 3)), auth);
    assert.equal(listed.json.result?.tasks?.length, 1, `only the first create wrote a task: ${listed.text}`);
  }
  assert.equal(await callsCounted(direct, 'direct'), 1, 'the accepted create went direct; the refusal through the SDK');
});

test('a TS SDK 1.x client (2025-11-25) opens a session and creates its task in it (where its status is pushed)', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const client = new Client({ name: 'sdk-1x', version: '0.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(server.mcpUrl)));
  t.after(() => client.close());
  assert.equal((client.transport as StreamableHTTPClientTransport).protocolVersion, '2025-11-25');
  const tool = (await client.listTools()).tools.find((listed) => listed.name === 'reflow_month');
  assert.equal(tool?.execution?.taskSupport, 'optional');
  const created = await client.request(
    { method: 'tools/call', params: { name: 'reflow_month', arguments: SEPT, task: { ttl: 60_000 } } },
    CreateTaskResultSchema,
  );
  assert.equal(created.task.status, 'working');
  // A session's create goes through its transport, so the session hears the task's status; the
  // direct path serves stateless creates (above). A 1.x client sends no Mcp-Method header, so its
  // session requests are counted under "other".
  assert.equal(await callsCounted(server, 'direct'), 0, 'not the stateless direct path');
  assert.ok((await requestsCounted(server.url, 'other', 'session')) >= 2, 'initialize and the create, in the session');
  const got = await client.experimental.tasks.getTask(created.task.taskId);
  assert.equal(got.taskId, created.task.taskId);
  assert.equal(got.status, 'working');
});
