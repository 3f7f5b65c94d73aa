// A create (a task tool's tools/call) answered directly, without a per-request MCP server, must be
// the SDK path's answer byte for byte; anything the direct path is unsure of, and every refusal but
// a shutdown's, still goes through the SDK. Two servers side by side: the default one, and one with
// the direct path off (MCP_FAST_TASK_CALLS=false), each sent the same bytes. The same tests run in each
// protocol era (ERAS): a 2026-07-28 create declares the Tasks extension in its _meta; a 2025-11-25
// one carries params.task, in the member order a TS SDK 1.x client writes.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { mcpHeaders } from '../../harness/mcp-wire.ts';
import { legacyMcpBody, legacyMcpHeaders } from '../../harness/mcp-wire-2025.ts';
import { PROTOCOL_VERSION, rpc, startTestServer, TASKS, type TestServer } from '../helpers/test-server.ts';
import { maskedAnswer, requestsCounted } from './direct-answer-checks.ts';
import { closeRawAgent, rawPost, type RawResponse } from '../helpers/raw-http.ts';

after(() => closeRawAgent());

const SEPT = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dry_run: true };

type Form = { body: unknown; headers?: Record<string, string> };

/** What a test needs to know of a protocol era to send a create and read its answer. */
interface Era {
  version: string;
  /** Settings of both servers. */
  env: Record<string, string>;
  /** The headers compared besides the status and the body. */
  answerHeaders: string[];
  send: (server: TestServer, body: unknown, headers?: Record<string, string>) => Promise<RawResponse>;
  /** A create of reflow_month; `task` is what the era's request carries besides the arguments, if any. */
  create: (args: unknown, id?: number | string, task?: unknown) => Record<string, unknown>;
  /** The plain creates the direct path answers. */
  plainCreates: { args: unknown; id: number | string; task?: unknown }[];
  /** Asserts `answer` is an accepted create (of `task`, when given) and returns the task's id. */
  accepted: (answer: RawResponse, task?: unknown) => string;
  /** The id tasks/get on `server` answers for `taskId` (undefined when it knows no such task). */
  polledId: (server: TestServer, taskId: string) => Promise<string | undefined>;
  /** Creates the direct path leaves to the SDK (labelled). */
  notDirect: () => Record<string, Form>;
}

const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

/** 2026-07-28: the Tasks extension declared in the request's _meta; the task is the tool's result. */
const era2026: Era = {
  version: PROTOCOL_VERSION,
  env: {},
  answerHeaders: ['content-type'],
  send: (server, body, headers = {}) =>
    rawPost(server.mcpUrl, { ...mcpHeaders('tools/call', 'reflow_month'), ...headers }, JSON.stringify(body)),
  create: (args, id = 1, meta = META) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'reflow_month', arguments: args, _meta: meta },
  }),
  plainCreates: [
    { args: SEPT, id: 1 },
    { args: { ...SEPT, from: '2026-09-08' }, id: 'string-id-7' },
    // `background` is reflow_month's own argument; a declaring client gets the task either way.
    { args: { ...SEPT, from: '2026-09-09', background: false }, id: 9_007_199_254_740_991 },
  ],
  accepted: (answer) => {
    assert.equal(answer.json?.result?.resultType, 'task', answer.text);
    return answer.json.result.taskId;
  },
  polledId: async (server, taskId) => (await rpc(server.mcpUrl, 'tasks/get', { taskId })).body.result?.taskId,
  notDirect: () => {
    const create = era2026.create;
    return {
      'an unknown room (the use case refuses it)': { body: create({ ...SEPT, offline_rooms: ['studio-zz'] }) },
      'arguments the schema refuses': { body: create({ ...SEPT, month: 'September' }) },
      'an unknown argument (strict schema)': { body: create({ ...SEPT, colour: 'blue' }) },
      'confirm: true (only a task can carry it, and it asks for an elicitation capability)': {
        body: create({ ...SEPT, dry_run: false, confirm: true }),
      },
      'no Tasks extension declared (the synchronous path would run)': {
        body: create({ ...SEPT, month: '2026-13' }, 1, { ...META, 'io.modelcontextprotocol/clientCapabilities': {} }),
      },
      'a progress token': { body: create({ ...SEPT, month: '2026-00' }, 1, { ...META, progressToken: 'p1' }) },
      'a tool that is not a task tool': {
        body: {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'list_rooms', arguments: {}, _meta: META },
        },
        headers: { 'mcp-name': 'list_rooms' },
      },
      'an unknown tool': {
        body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope', arguments: {}, _meta: META } },
        headers: { 'mcp-name': 'nope' },
      },
      'Mcp-Name naming another tool': { body: create(SEPT), headers: { 'mcp-name': 'revert_reflow' } },
      'arguments that are not an object': { body: create(['x']) },
      'an extra parameter': {
        body: { ...create(SEPT), params: { ...(create(SEPT).params as object), extra: 1 } },
      },
      'an extra top-level member': { body: { ...create(SEPT), extra: true } },
      'a fractional id': { body: create(SEPT, 1.5) },
    };
  },
};

/** A 2025-11-25 request in the member order a TS SDK 1.x client writes. */
const request2025 = (method: string, params: Record<string, unknown>, id: number | string = 1) =>
  JSON.parse(legacyMcpBody(method, params, id)) as Record<string, unknown>;

/**
 * 2025-11-25: params.task on tools/call; the task is in the result's `task`. Neither server runs
 * tasks (WORKERS=0), so both give a create the same status and poll interval.
 */
const era2025: Era = {
  version: '2025-11-25',
  env: { WORKERS: '0' },
  /** The headers that say what the answer is (framing — chunked or content-length — and the date aside). */
  answerHeaders: ['content-type', 'cache-control', 'connection', 'x-accel-buffering', 'mcp-session-id'],
  send: (server, body, headers = {}) =>
    rawPost(
      server.mcpUrl,
      { ...legacyMcpHeaders(), ...headers },
      typeof body === 'string' ? body : JSON.stringify(body),
    ),
  create: (args, id = 1, task = {}) => request2025('tools/call', { name: 'reflow_month', arguments: args, task }, id),
  plainCreates: [
    { args: SEPT, id: 1, task: {} },
    { args: { ...SEPT, from: '2026-09-08' }, id: 'string-id-7', task: {} },
    // The SDK accepts a requested ttl and LegacyTasks does not honour it: the engine's ttl, on both.
    { args: { ...SEPT, from: '2026-09-09' }, id: 9_007_199_254_740_991, task: { ttl: 60_000 } },
    // `background` is reflow_month's own argument; a task-augmented call gets the task either way.
    { args: { ...SEPT, from: '2026-09-10', background: false }, id: 0, task: { ttl: 1.5 } },
  ],
  accepted: (answer, task) => {
    const created = answer.json?.result?.task;
    assert.equal(created?.status, 'working', answer.text);
    if (task !== undefined)
      assert.notEqual(created.ttl, (task as { ttl?: number }).ttl, 'the requested ttl is not the task’s');
    return created.taskId;
  },
  polledId: async (server, taskId) => {
    const polled = await era2025.send(server, request2025('tasks/get', { taskId }, 2));
    return polled.json?.result?.taskId;
  },
  notDirect: () => {
    const { create } = era2025;
    const plain = create(SEPT);
    const params = plain.params as Record<string, unknown>;
    const call = (callParams: Record<string, unknown>) => request2025('tools/call', callParams);
    return {
      'an unknown room (the use case refuses it)': { body: create({ ...SEPT, offline_rooms: ['studio-zz'] }) },
      'arguments the schema refuses': { body: create({ ...SEPT, month: 'September' }) },
      'an unknown argument (strict schema)': { body: create({ ...SEPT, colour: 'blue' }) },
      'confirm: true (only a 2026-07-28 task can carry it)': {
        body: create({ ...SEPT, dry_run: false, confirm: true }),
      },
      'no params.task, refused (the synchronous call)': {
        body: call({ name: 'reflow_month', arguments: { ...SEPT, month: '2026-13' } }),
      },
      'no params.task, background: true (the synchronous call answers at once)': {
        body: call({ name: 'reflow_month', arguments: { ...SEPT, from: '2026-09-12', background: true } }),
      },
      'a tool that is not a task tool': { body: call({ name: 'list_rooms', arguments: {}, task: {} }) },
      'an unknown tool': { body: call({ name: 'nope', arguments: {}, task: {} }) },
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
  },
};

const ERAS = [era2026, era2025];

/**
 * How many tasks `token`'s tasks/list on `server` shows. 2025-11-25's tasks/list, in either era's
 * test: the server serves both, and 2026-07-28 has no tasks/list.
 */
async function listed(server: TestServer, token: string): Promise<number | undefined> {
  const answer = await era2025.send(server, request2025('tasks/list', {}, 3), { authorization: `Bearer ${token}` });
  return answer.json?.result?.tasks?.length;
}

const callsCounted = (server: TestServer, path: 'direct' | 'sdk') => requestsCounted(server.url, 'tools/call', path);

/** What a client sees of an answer, with the values no two creates share (id, instants) masked. */
function seen(era: Era, res: RawResponse) {
  const headers = Object.fromEntries(era.answerHeaders.map((h) => [h, res.headers[h]]));
  return { status: res.status, headers, body: maskedAnswer(res.text) };
}

async function both(era: Era, env: Record<string, string> = {}) {
  const direct = await startTestServer({ ...era.env, ...env });
  const sdkOnly = await startTestServer({ ...era.env, ...env, MCP_FAST_TASK_CALLS: 'false' });
  return { direct, sdkOnly, close: () => Promise.all([direct.close(), sdkOnly.close()]) };
}

for (const era of ERAS) {
  test(`${era.version}: a plain create is answered directly, with the SDK answer byte for byte, and the task is durable and deduplicated`, async (t) => {
    const { direct, sdkOnly, close } = await both(era);
    t.after(close);
    const before = await callsCounted(direct, 'direct');
    for (const { args, id, task } of era.plainCreates) {
      const answers = [];
      for (const server of [direct, sdkOnly]) answers.push(await era.send(server, era.create(args, id, task)));
      assert.deepEqual(
        seen(era, answers[0]),
        seen(era, answers[1]),
        `the direct answer to ${JSON.stringify(args)} differs`,
      );
      assert.equal(answers[0].status, 200);
      assert.equal(answers[0].json.id, id);
      const taskId = era.accepted(answers[0], task);
      // Committed before the answer: the task is there when the answer arrives.
      assert.equal(await era.polledId(direct, taskId), taskId);
    }
    const plain = era.plainCreates.length;
    assert.equal((await callsCounted(direct, 'direct')) - before, plain, 'each plain create was answered directly');
    assert.equal(await callsCounted(direct, 'sdk'), 0);
    assert.equal(await callsCounted(sdkOnly, 'direct'), 0, 'the comparison server never answers directly');

    // The same work again while the first is under way: the same task (the engine's dedupe), directly.
    const first = era.accepted(await era.send(direct, era.create({ ...SEPT, from: '2026-09-11' })));
    const again = era.accepted(await era.send(direct, era.create({ ...SEPT, from: '2026-09-11' }, 2)));
    assert.equal(again, first);
    assert.equal((await callsCounted(direct, 'direct')) - before, plain + 2);
  });

  test(`${era.version}: what the direct create does not answer keeps the SDK answer, byte for byte, and creates nothing twice`, async (t) => {
    const { direct, sdkOnly, close } = await both(era);
    t.after(close);
    const before = await callsCounted(direct, 'direct');
    for (const [label, { body, headers }] of Object.entries(era.notDirect())) {
      const answers = [];
      for (const server of [direct, sdkOnly]) answers.push(seen(era, await era.send(server, body, headers)));
      assert.deepEqual(answers[0], answers[1], `${label}: the direct path answers differently from the SDK`);
    }
    assert.equal(await callsCounted(direct, 'direct'), before, 'none was answered directly');
  });

  test(`${era.version}: a create while the engine stops gets the SDK's RFL_SHUTTING_DOWN refusal, answered once, by the direct path`, async (t) => {
    const { direct, sdkOnly, close } = await both(era);
    t.after(close);
    // The engine stops (as at shutdown, before the HTTP server closes): it accepts no new tasks.
    for (const server of [direct, sdkOnly]) await server.services.engine.stop(0);
    const answers = [];
    for (const server of [direct, sdkOnly]) answers.push(seen(era, await era.send(server, era.create(SEPT))));
    assert.deepEqual(answers[0], answers[1], 'the refusal differs');
    assert.match(answers[0].body, /RFL_SHUTTING_DOWN: The server is shutting down/);
    // Not run again through the SDK: the direct path answered it.
    assert.equal(await callsCounted(direct, 'direct'), 1);
    assert.equal(await callsCounted(direct, 'sdk'), 0);
  });

  test(`${era.version}: a refused create (a creation limit) gets the SDK refusal, and writes nothing`, async (t) => {
    const token = 'tok-alice-0123456789';
    const { direct, sdkOnly, close } = await both(era, {
      AUTH_TOKENS: `alice:client:${token}`,
      MAX_ACTIVE_TASKS_PER_PRINCIPAL: '1',
    });
    t.after(close);
    const auth = { authorization: `Bearer ${token}` };
    const answers = [];
    for (const server of [direct, sdkOnly]) {
      era.accepted(await era.send(server, era.create(SEPT), auth));
      answers.push(seen(era, await era.send(server, era.create({ ...SEPT, from: '2026-09-08' }, 2), auth)));
    }
    assert.deepEqual(answers[0], answers[1], 'the refusal differs');
    assert.match(answers[0].body, /RFL_TOO_MANY_TASKS/);
    for (const server of [direct, sdkOnly])
      assert.equal(await listed(server, token), 1, 'only the first create wrote a task');
    assert.equal(
      await callsCounted(direct, 'direct'),
      1,
      'the accepted create went direct; the refusal through the SDK',
    );
  });
}

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
