// Generates the hostile-input test's requests: malformed JSON, wrong `jsonrpc`, unknown methods,
// wrong types, huge and deeply nested bodies, bad headers, invalid arguments, guessed and foreign
// task ids. Seeded (fast-check), so a failure reproduces. Each case carries its own check of the answer.
import fc from 'fast-check';
import type { RawResponse } from './raw-http.ts';

export interface HostileContext {
  /** Host header of the server as a legitimate client sends it (`127.0.0.1:port`). */
  host: string;
  /** The attacker's own valid token (most attacks come from an authenticated client). */
  token: string;
  /** Tasks of another principal. */
  foreignTaskIds: string[];
  rooms: string[];
  bodyLimit: number;
}

export interface HostileCase {
  category: string;
  name: string;
  headers: Record<string, string>;
  body: string;
  /** undefined when the answer is the right refusal; otherwise what was wrong with it. */
  check(res: RawResponse): string | undefined;
}

const PV = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
const KNOWN_METHODS = new Set(['tools/list', 'tools/call', 'server/discover', 'tasks/get', 'tasks/update', 'tasks/cancel', 'ping']);
const sample = <T>(arb: fc.Arbitrary<T>, n: number, seed: number): T[] => fc.sample(arb, { seed, numRuns: n });

const envelope = (declare: boolean) => ({
  'io.modelcontextprotocol/protocolVersion': PV,
  'io.modelcontextprotocol/clientCapabilities': declare ? { extensions: { [TASKS]: {} } } : {},
});

/** A JSON-RPC error with this code (and HTTP status when given); message matched when given. */
export const rpcError =
  (code: number, status?: number, message?: RegExp) =>
  (res: RawResponse): string | undefined => {
    if (status !== undefined && res.status !== status) return `HTTP ${res.status}, expected ${status}: ${res.text.slice(0, 200)}`;
    const error = res.json?.error;
    if (!error) return `no JSON-RPC error: HTTP ${res.status} ${res.text.slice(0, 200)}`;
    if (error.code !== code) return `error code ${error.code}, expected ${code}: ${error.message}`;
    if (message && !message.test(error.message)) return `message "${error.message}" does not match ${message}`;
    return undefined;
  };

/** A tool error result (isError) whose text names the problem. */
export const toolError =
  (text: RegExp) =>
  (res: RawResponse): string | undefined => {
    if (res.status !== 200) return `HTTP ${res.status}: ${res.text.slice(0, 200)}`;
    const result = res.json?.result;
    if (!result?.isError) return `not a tool error: ${res.text.slice(0, 200)}`;
    if (result.taskId) return 'a task was created';
    const said = result.content?.map((c: { text?: string }) => c.text).join(' ') ?? '';
    return text.test(said) ? undefined : `tool error "${said}" does not match ${text}`;
  };

/** An HTTP refusal before JSON-RPC: status, and a header when given. */
export const httpStatus =
  (status: number, header?: [string, RegExp]) =>
  (res: RawResponse): string | undefined => {
    if (res.status !== status) return `HTTP ${res.status}, expected ${status}: ${res.text.slice(0, 200)}`;
    if (header && !header[1].test(String(res.headers[header[0]] ?? ''))) return `header ${header[0]}: ${res.headers[header[0]]}`;
    return undefined;
  };

export function generateHostileRequests(ctx: HostileContext): HostileCase[] {
  const cases: HostileCase[] = [];
  let nextId = 1;
  const baseHeaders = (extra: Record<string, string> = {}) => ({
    host: ctx.host,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': PV,
    authorization: `Bearer ${ctx.token}`,
    ...extra,
  });
  /** A well-framed request (headers agree with the body) carrying whatever params it is given. */
  const call = (method: string, params: Record<string, unknown>, opts: { declare?: boolean; headers?: Record<string, string> } = {}) => {
    // The 2026-07-28 transport mirrors the tool name (tools/call) and the task id (tasks/*) in Mcp-Name.
    const named = method === 'tools/call' ? params.name : method.startsWith('tasks/') ? params.taskId : undefined;
    const name: Record<string, string> = typeof named === 'string' ? { 'mcp-name': named } : {};
    return {
      headers: baseHeaders({ 'mcp-method': method, ...name, ...opts.headers }),
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params: { ...params, _meta: envelope(opts.declare ?? true) } }),
    };
  };
  const add = (category: string, name: string, req: { headers: Record<string, string>; body: string }, check: HostileCase['check']) =>
    cases.push({ category, name, ...req, check });
  const reflow = (args: unknown, declare = true) => call('tools/call', { name: 'reflow_month', arguments: args }, { declare });
  const valid = { month: '2026-09', offline_rooms: [ctx.rooms[0]], from: '2026-09-07', to: '2026-09-20', dry_run: true };

  // Malformed JSON: a valid request cut short, and random text that is not JSON.
  const good = call('tools/list', {});
  for (const cut of sample(fc.integer({ min: 1, max: good.body.length - 1 }), 25, 1))
    add('malformed JSON', `cut at ${cut}`, { headers: good.headers, body: good.body.slice(0, cut) }, rpcError(-32700, 400));
  const notJson = fc.string({ minLength: 1, maxLength: 80 }).filter((s) => s.trim().length > 0 && !parses(s));
  for (const text of sample(notJson, 20, 2)) add('malformed JSON', JSON.stringify(text), { headers: good.headers, body: text }, rpcError(-32700, 400));

  // Valid JSON that is not a JSON-RPC message, and the wrong `jsonrpc`.
  for (const body of ['null', '1', '"tools/list"', 'true', '{}', '{"id":1}', '{"method":"tools/list"}', '[1,2,3]', '[{}]', '{"jsonrpc":"2.0"}'])
    add('not a message', body, { headers: good.headers, body }, rpcError(-32600, 400));
  for (const version of ['1.0', '2', 2, null, '', ' 2.0', '2.0 ', 'two', true, [], {}, '3.0', '2.00', 'JSON-RPC 2.0'])
    add('wrong jsonrpc', JSON.stringify(version), { headers: good.headers, body: JSON.stringify({ jsonrpc: version, id: nextId++, method: 'tools/list', params: { _meta: envelope(true) } }) }, rpcError(-32600, 400));
  add('wrong jsonrpc', 'missing', { headers: good.headers, body: JSON.stringify({ id: nextId++, method: 'tools/list', params: { _meta: envelope(true) } }) }, rpcError(-32600, 400));

  // Unknown methods, including the two the final Tasks extension removed.
  const method = fc.stringMatching(/^[a-z]{2,10}\/[a-z]{2,10}$/).filter((m) => !KNOWN_METHODS.has(m));
  for (const m of [...sample(method, 28, 3), 'tasks/result', 'tasks/list'])
    add('unknown method', m, call(m, m.startsWith('tasks/') ? { taskId: 'tsk_0' } : {}), rpcError(-32601));

  // Wrong types.
  for (const name of [5, null, [], {}, true, 1.5])
    add('wrong type', `tools/call name ${JSON.stringify(name)}`, call('tools/call', { name, arguments: {} }), rpcError(-32602));
  for (const tool of ['reflow_month', 'list_bookings', 'list_rooms'])
    for (const args of ['x', 5, [], true])
      add('wrong type', `${tool} arguments ${JSON.stringify(args)}`, call('tools/call', { name: tool, arguments: args }), rpcError(-32602));
  for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'])
    for (const taskId of [5, null, [], {}, '', 'x'.repeat(201), true])
      add('wrong type', `${method} taskId ${JSON.stringify(taskId).slice(0, 20)}`, call(method, { taskId, inputResponses: {} }), rpcError(-32602));
  for (const inputResponses of ['x', 5, [], null])
    add('wrong type', `tasks/update inputResponses ${JSON.stringify(inputResponses)}`, call('tasks/update', { taskId: ctx.foreignTaskIds[0], inputResponses }), rpcError(-32602));
  for (const id of [{}, [], true])
    add('wrong type', `id ${JSON.stringify(id)}`, { headers: good.headers, body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: envelope(true) } }) }, rpcError(-32600, 400));

  // Huge bodies: every shape over the body limit is refused before it is parsed.
  const over = ctx.bodyLimit + 1;
  const huge = [
    ['long string', JSON.stringify({ ...JSON.parse(reflow(valid).body), pad: 'x'.repeat(over) })],
    ['many rooms', reflow({ ...valid, offline_rooms: Array.from({ length: Math.ceil(over / 10) }, (_, i) => `room-${String(i).padStart(6, '0')}`) }).body],
    ['many keys', JSON.stringify(Object.fromEntries(Array.from({ length: Math.ceil(over / 10) }, (_, i) => [`k${i}`, i])))],
    ['4x the limit', 'x'.repeat(4 * over)],
    ['16x the limit', '['.repeat(16 * over)],
  ] as const;
  for (const [name, body] of huge) add('huge body', name, { headers: reflow(valid).headers, body }, httpStatus(413));

  // Deeply nested bodies: in tool arguments, and as the whole message.
  for (const depth of [100, 1_000, 5_000, Math.floor(ctx.bodyLimit / 6) - 200]) {
    const nested = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    for (const declare of [true, false]) {
      const framed = reflow({}, declare);
      add('deep nesting', `arguments depth ${depth}${declare ? '' : ' (no extension)'}`, { headers: framed.headers, body: framed.body.replace('"arguments":{}', `"arguments":${nested}`) }, toolError(/month|Unrecognized key|offline_rooms/));
    }
  }
  for (const depth of [100, 10_000, ctx.bodyLimit / 2 - 100])
    add('deep nesting', `message depth ${depth}`, { headers: good.headers, body: '['.repeat(depth) + ']'.repeat(depth) }, rpcError(-32600, 400));

  // Bad headers.
  const unauthorized = httpStatus(401, ['www-authenticate', /^Bearer /]);
  for (const m of ['tools/list', 'tools/call', 'tasks/get', 'server/discover']) {
    const req = call(m, m === 'tools/call' ? { name: 'reflow_month', arguments: valid } : { taskId: ctx.foreignTaskIds[0] });
    const { authorization: _, ...withoutAuth } = req.headers;
    add('bad headers', `no Authorization on ${m}`, { headers: withoutAuth, body: req.body }, unauthorized);
  }
  for (const token of sample(fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/), 16, 4))
    add('bad headers', `unknown token ${token.slice(0, 8)}…`, call('tools/list', {}, { headers: { authorization: `Bearer ${token}` } }), httpStatus(401, ['www-authenticate', /invalid_token/]));
  for (const authorization of [`Basic ${Buffer.from(`a:${ctx.token}`).toString('base64')}`, 'Bearer', 'Bearer ', `Bearer ${ctx.token}x`, `Bearer ${ctx.token.slice(0, -1)}`, `Bearer ${ctx.token} extra`, `Token ${ctx.token}`, ctx.token, `Bearer ${ctx.token.toUpperCase()}`])
    add('bad headers', `Authorization "${authorization.slice(0, 20)}…"`, call('tools/list', {}, { headers: { authorization } }), unauthorized);
  for (const host of ['evil.example.com', `evil.example.com:${ctx.host.split(':')[1]}`, 'localhost.evil.com', '127.0.0.1.nip.io', 'attacker', '10.0.0.1'])
    add('bad headers', `Host ${host}`, call('tools/list', {}, { headers: { host } }), httpStatus(403));
  for (const origin of ['http://evil.example.com', 'https://localhost.evil.com', 'null', 'not a url', 'http://127.0.0.1.nip.io'])
    add('bad headers', `Origin ${origin}`, call('tools/list', {}, { headers: { origin } }), httpStatus(403));
  for (const m of ['prompts/list', 'tools/call', 'TOOLS/LIST', 'tasks/get'])
    add('bad headers', `Mcp-Method ${m} for tools/list`, call('tools/list', {}, { headers: { 'mcp-method': m } }), rpcError(-32020, 400));
  const noMethodHeader = call('tools/list', {});
  delete (noMethodHeader.headers as Record<string, string>)['mcp-method'];
  add('bad headers', 'no Mcp-Method', noMethodHeader, rpcError(-32020, 400));
  for (const name of ['list_rooms', 'wrong_tool', 'REFLOW_MONTH']) {
    const req = reflow(valid, true);
    add('bad headers', `Mcp-Name ${name} for reflow_month`, { headers: { ...req.headers, 'mcp-name': name }, body: req.body }, rpcError(-32020, 400));
  }
  for (const version of ['2025-06-18', 'garbage', '2099-01-01'])
    add('bad headers', `MCP-Protocol-Version ${version}`, call('tools/list', {}, { headers: { 'mcp-protocol-version': version } }), rpcError(-32020, 400));
  for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded'])
    add('bad headers', `Content-Type ${type}`, call('tools/list', {}, { headers: { 'content-type': type } }), httpStatus(415));

  // Invalid arguments, on both the task path (declaring) and the synchronous one.
  const badMonth = fc.string({ maxLength: 30 }).filter((s) => !/^\d{4}-(0[1-9]|1[0-2])$/.test(s));
  sample(badMonth, 20, 5).forEach((month, i) =>
    add('invalid arguments', `month ${JSON.stringify(month)}`, reflow({ ...valid, month }, i % 2 === 0), toolError(/month: must be a month YYYY-MM/)),
  );
  const roomId = fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/).filter((r) => !ctx.rooms.includes(r));
  sample(roomId, 15, 6).forEach((room, i) =>
    add('invalid arguments', `unknown room ${room}`, reflow({ ...valid, offline_rooms: [ctx.rooms[0], room] }, i % 2 === 0), toolError(/RFL_UNKNOWN_ROOM: Unknown room/)),
  );
  for (const [from, to] of [['2026-09-20', '2026-09-07'], ['2026-09-30', '2026-09-01'], ['2026-09-02', '2026-09-01']] as const)
    for (const declare of [true, false])
      add('invalid arguments', `from ${from} after to ${to}`, reflow({ ...valid, from, to }, declare), toolError(/RFL_FROM_AFTER_TO: from .* is after to/));
  for (const [from, to] of [['2026-08-31', '2026-09-05'], ['2026-09-01', '2026-10-01'], ['2025-09-07', '2025-09-20'], ['2026-10-01', '2026-10-02']] as const)
    for (const declare of [true, false])
      add('invalid arguments', `window ${from}..${to} outside the month`, reflow({ ...valid, from, to }, declare), toolError(/RFL_WINDOW_OUTSIDE_MONTH: (from|to) .* is outside 2026-09/));
  for (const day of ['2026-09-31', '2026-09-00', '2026-09-99'])
    add('invalid arguments', `date ${day}`, reflow({ ...valid, from: day, to: day }), toolError(/RFL_BAD_DATE: from .* is not a real date/));
  for (const declare of [true, false]) {
    add('invalid arguments', 'empty room list', reflow({ ...valid, offline_rooms: [] }, declare), toolError(/name at least one room/));
    add('invalid arguments', '51 rooms', reflow({ ...valid, offline_rooms: Array.from({ length: 51 }, (_, i) => `room-${i}`) }, declare), toolError(/at most 50 rooms/));
    add('invalid arguments', 'room id of 101 characters', reflow({ ...valid, offline_rooms: ['r'.repeat(101)] }, declare), toolError(/at most 100 characters/));
    add('invalid arguments', 'room id of 100 kB', reflow({ ...valid, offline_rooms: ['r'.repeat(Math.floor(ctx.bodyLimit / 2))] }, declare), toolError(/at most 100 characters/));
    add('invalid arguments', 'month of 10 kB', reflow({ ...valid, month: '2026-09'.repeat(1500) }, declare), toolError(/month: must be a month YYYY-MM/));
    add('invalid arguments', 'room id with control characters', reflow({ ...valid, offline_rooms: ['studio-b\u0000'] }, declare), toolError(/room ids may hold only/));
    add('invalid arguments', 'unknown key', reflow({ ...valid, owner: 'someone-else' }, declare), toolError(/Unrecognized key/));
    add('invalid arguments', 'dry_run "yes"', reflow({ ...valid, dry_run: 'yes' }, declare), toolError(/dry_run/));
    add('invalid arguments', 'missing month', reflow({ offline_rooms: [ctx.rooms[0]] }, declare), toolError(/month/));
    add('invalid arguments', 'rooms not an array', reflow({ ...valid, offline_rooms: ctx.rooms[0] }, declare), toolError(/offline_rooms/));
  }
  for (const args of [{ month: '2026-9' }, { month: '2026-09', room: 'nowhere' }, { month: '2026-09', room: '' }, { month: '2026-09', extra: 1 }, {}])
    add('invalid arguments', `list_bookings ${JSON.stringify(args)}`, call('tools/call', { name: 'list_bookings', arguments: args }), toolError(/month|room|Unknown room|Unrecognized key/));

  // Guessed task ids (well-formed and not), and another principal's real ones: all read as unknown.
  // tasks/update is refused -32602 for any id (the SDK lifts inputResponses out of params); the
  // foreign-vs-unknown equality of its answer is checked in auth.test.ts.
  const notFound = (id: string, method: string) =>
    rpcError(-32602, 200, method === 'tasks/update' ? undefined : new RegExp(`^Task not found or expired: ${escape(id)}$`));
  const guessed = [
    ...sample(fc.stringMatching(/^[0-9a-f]{40}$/), 20, 7).map((h) => `tsk_${h}`),
    // Any printable text; header values cannot keep outer whitespace, so neither do these ids.
    ...sample(fc.string({ minLength: 1, maxLength: 200 }).filter((t) => t.trim() === t), 10, 8),
  ];
  guessed.forEach((taskId, i) => {
    const m = ['tasks/get', 'tasks/cancel', 'tasks/update'][i % 3];
    add('guessed task id', `${m} ${JSON.stringify(taskId).slice(0, 24)}`, call(m, { taskId, inputResponses: {} }), notFound(taskId, m));
  });
  for (const taskId of ctx.foreignTaskIds)
    for (const m of ['tasks/get', 'tasks/cancel', 'tasks/update', 'tasks/get', 'tasks/cancel'])
      add('foreign task id', `${m} ${taskId.slice(0, 12)}…`, call(m, { taskId, inputResponses: {} }), notFound(taskId, m));
  for (const taskId of ctx.foreignTaskIds)
    add('undeclared tasks/get', taskId.slice(0, 12), call('tasks/get', { taskId }, { declare: false }), rpcError(-32021));

  return cases;
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
