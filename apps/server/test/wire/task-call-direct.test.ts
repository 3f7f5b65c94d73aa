// A create (a task tool's tools/call) answered directly, without a per-request MCP server, must be
// the SDK path's answer byte for byte; anything the direct path is unsure of, and every refusal,
// still goes through the SDK. Two servers side by side: the default one, and one with the direct
// path off (MCP_FAST_TASK_CALLS=false), each sent the same bytes.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { mcpHeaders } from '../../harness/mcp-wire.ts';
import { PROTOCOL_VERSION, rpc, startTestServer, TASKS, type TestServer } from '../helpers/test-server.ts';
import { maskedAnswer, requestsCounted } from './direct-answer-checks.ts';
import { closeRawAgent, rawPost, type RawResponse } from '../helpers/raw-http.ts';

after(() => closeRawAgent());

const SEPT = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dry_run: true };
const META = {
  'io.modelcontextprotocol/protocolVersion': PROTOCOL_VERSION,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS]: {} } },
};

const callsCounted = (url: string, path: 'direct' | 'sdk') => requestsCounted(url, 'tools/call', path);

/** What a client sees of an answer, with the values no two creates share (id, instants) masked. */
function seen(res: RawResponse) {
  const masked = maskedAnswer(res.text);
  return { status: res.status, contentType: res.headers['content-type'], body: masked };
}

async function both(env: Record<string, string> = {}) {
  const direct = await startTestServer(env);
  const sdkOnly = await startTestServer({ ...env, MCP_FAST_TASK_CALLS: 'false' });
  return { direct, sdkOnly, close: () => Promise.all([direct.close(), sdkOnly.close()]) };
}

const send = (server: TestServer, body: unknown, headers: Record<string, string> = {}) =>
  rawPost(server.mcpUrl, { ...mcpHeaders('tools/call', 'reflow_month'), ...headers }, JSON.stringify(body));

const create = (args: Record<string, unknown>, id: number | string = 1, meta: Record<string, unknown> = META) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'reflow_month', arguments: args, _meta: meta },
});

test('a plain create is answered directly, with the SDK answer byte for byte, and the task is durable and deduplicated', async (t) => {
  const { direct, sdkOnly, close } = await both();
  t.after(close);
  const before = await callsCounted(direct.url, 'direct');
  for (const [args, id] of [
    [SEPT, 1],
    [{ ...SEPT, from: '2026-09-08' }, 'string-id-7'],
    // `background` is reflow_month's own argument; a declaring client gets the task either way.
    [{ ...SEPT, from: '2026-09-09', background: false }, 9_007_199_254_740_991],
  ] as const) {
    const answers = [];
    for (const server of [direct, sdkOnly]) answers.push(await send(server, create(args, id)));
    assert.deepEqual(seen(answers[0]), seen(answers[1]), `the direct answer to ${JSON.stringify(args)} differs`);
    const result = answers[0].json.result;
    assert.equal(result.resultType, 'task');
    assert.equal(answers[0].json.id, id);
    // Committed before the answer: the task is there when the answer arrives.
    const polled = await rpc(direct.mcpUrl, 'tasks/get', { taskId: result.taskId });
    assert.equal(polled.body.result?.taskId, result.taskId);
  }
  assert.equal((await callsCounted(direct.url, 'direct')) - before, 3, 'each plain create was answered directly');
  assert.equal(await callsCounted(direct.url, 'sdk'), 0);
  assert.equal(await callsCounted(sdkOnly.url, 'direct'), 0, 'the comparison server never answers directly');

  // The same work again while the first is under way: the same task (the engine's dedupe), directly.
  const first = (await send(direct, create({ ...SEPT, from: '2026-09-10' }))).json.result.taskId;
  const again = (await send(direct, create({ ...SEPT, from: '2026-09-10' }))).json.result.taskId;
  assert.equal(again, first);
});

test('what the direct path does not answer keeps the SDK answer, and creates nothing twice', async (t) => {
  const { direct, sdkOnly, close } = await both();
  t.after(close);
  const forms: Record<string, { body: unknown; headers?: Record<string, string> }> = {
    'an unknown room (the use case refuses it)': { body: create({ ...SEPT, offline_rooms: ['studio-zz'] }) },
    'arguments the schema refuses': { body: create({ ...SEPT, month: 'September' }) },
    'an unknown argument (strict schema)': { body: create({ ...SEPT, colour: 'blue' }) },
    'confirm: true (only a task can carry it, and it asks for an elicitation capability)': {
      body: create({ ...SEPT, dry_run: false, confirm: true }),
    },
    'no Tasks extension declared (the synchronous path would run)': {
      body: create({ ...SEPT, month: '2026-13' }, 1, {
        ...META,
        'io.modelcontextprotocol/clientCapabilities': {},
      }),
    },
    'a progress token': { body: create({ ...SEPT, month: '2026-00' }, 1, { ...META, progressToken: 'p1' }) },
    'a tool that is not a task tool': {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_rooms', arguments: {}, _meta: META } },
      headers: { 'mcp-name': 'list_rooms' },
    },
    'an unknown tool': {
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'nope', arguments: {}, _meta: META } },
      headers: { 'mcp-name': 'nope' },
    },
    'Mcp-Name naming another tool': { body: create(SEPT), headers: { 'mcp-name': 'revert_reflow' } },
    'arguments that are not an object': { body: create(['x'] as never) },
    'an extra parameter': {
      body: { ...create(SEPT), params: { ...create(SEPT).params, extra: 1 } },
    },
    'an extra top-level member': { body: { ...create(SEPT), extra: true } },
    'a fractional id': { body: create(SEPT, 1.5) },
  };
  const before = await callsCounted(direct.url, 'direct');
  for (const [label, { body, headers }] of Object.entries(forms)) {
    const answers = [];
    for (const server of [direct, sdkOnly]) answers.push(seen(await send(server, body, headers)));
    assert.deepEqual(answers[0], answers[1], `${label}: the direct path answers differently from the SDK`);
  }
  assert.equal(await callsCounted(direct.url, 'direct'), before, 'none was answered directly');
});

test('a refused create (a creation limit) gets the SDK refusal, and writes nothing', async (t) => {
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
    assert.equal(first.json.result?.resultType, 'task', first.text);
    answers.push(seen(await send(server, create({ ...SEPT, from: '2026-09-08' }), auth)));
  }
  assert.deepEqual(answers[0], answers[1], 'the refusal differs');
  assert.match(answers[0].body, /RFL_TOO_MANY_TASKS/);
  const listed = await rpc(direct.mcpUrl, 'tasks/list', {}, { token });
  assert.equal(listed.body.result?.tasks?.length ?? 1, 1, 'only the first create wrote a task');
  assert.equal(
    await callsCounted(direct.url, 'direct'),
    1,
    'the accepted create went direct; the refusal through the SDK',
  );
});
