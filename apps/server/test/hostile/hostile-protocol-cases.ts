// Hostile requests that break the protocol: malformed JSON, wrong `jsonrpc`, unknown methods, wrong
// types, bodies over the limit, deep nesting, and bad headers (tokens, Host, Origin, MCP headers).
import fc from 'fast-check';
import { httpStatus, rpcError, toolError } from './hostile-checks.ts';
import { envelope, sample, type Framer } from './hostile-framing.ts';

const KNOWN_METHODS = new Set([
  'tools/list',
  'tools/call',
  'server/discover',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'ping',
]);

export function protocolCases({ ctx, call, reflow, valid, add, nextId }: Framer): void {
  // Malformed JSON: a valid request cut short, and random text that is not JSON.
  const good = call('tools/list', {});
  for (const cut of sample(fc.integer({ min: 1, max: good.body.length - 1 }), 25, 1))
    add(
      'malformed JSON',
      `cut at ${cut}`,
      { headers: good.headers, body: good.body.slice(0, cut) },
      rpcError(-32700, 400),
    );
  const notJson = fc.string({ minLength: 1, maxLength: 80 }).filter((s) => s.trim().length > 0 && !parses(s));
  for (const text of sample(notJson, 20, 2))
    add('malformed JSON', JSON.stringify(text), { headers: good.headers, body: text }, rpcError(-32700, 400));

  // Valid JSON that is not a JSON-RPC message, and the wrong `jsonrpc`.
  for (const body of [
    'null',
    '1',
    '"tools/list"',
    'true',
    '{}',
    '{"id":1}',
    '{"method":"tools/list"}',
    '[1,2,3]',
    '[{}]',
    '{"jsonrpc":"2.0"}',
  ])
    add('not a message', body, { headers: good.headers, body }, rpcError(-32600, 400));
  for (const version of ['1.0', '2', 2, null, '', ' 2.0', '2.0 ', 'two', true, [], {}, '3.0', '2.00', 'JSON-RPC 2.0'])
    add(
      'wrong jsonrpc',
      JSON.stringify(version),
      {
        headers: good.headers,
        body: JSON.stringify({
          jsonrpc: version,
          id: nextId(),
          method: 'tools/list',
          params: { _meta: envelope(true) },
        }),
      },
      rpcError(-32600, 400),
    );
  add(
    'wrong jsonrpc',
    'missing',
    {
      headers: good.headers,
      body: JSON.stringify({ id: nextId(), method: 'tools/list', params: { _meta: envelope(true) } }),
    },
    rpcError(-32600, 400),
  );

  // Unknown methods, including the two the final Tasks extension removed.
  const method = fc.stringMatching(/^[a-z]{2,10}\/[a-z]{2,10}$/).filter((m) => !KNOWN_METHODS.has(m));
  for (const m of [...sample(method, 28, 3), 'tasks/result', 'tasks/list'])
    add('unknown method', m, call(m, m.startsWith('tasks/') ? { taskId: 'tsk_0' } : {}), rpcError(-32601));

  // Wrong types.
  for (const name of [5, null, [], {}, true, 1.5])
    add(
      'wrong type',
      `tools/call name ${JSON.stringify(name)}`,
      call('tools/call', { name, arguments: {} }),
      rpcError(-32602),
    );
  for (const tool of ['reflow_month', 'list_bookings', 'list_rooms'])
    for (const args of ['x', 5, [], true])
      add(
        'wrong type',
        `${tool} arguments ${JSON.stringify(args)}`,
        call('tools/call', { name: tool, arguments: args }),
        rpcError(-32602),
      );
  for (const method of ['tasks/get', 'tasks/cancel', 'tasks/update'])
    for (const taskId of [5, null, [], {}, '', 'x'.repeat(201), true])
      add(
        'wrong type',
        `${method} taskId ${JSON.stringify(taskId).slice(0, 20)}`,
        call(method, { taskId, inputResponses: {} }),
        rpcError(-32602),
      );
  for (const inputResponses of ['x', 5, [], null])
    add(
      'wrong type',
      `tasks/update inputResponses ${JSON.stringify(inputResponses)}`,
      call('tasks/update', { taskId: ctx.foreignTaskIds[0], inputResponses }),
      rpcError(-32602),
    );
  for (const id of [{}, [], true])
    add(
      'wrong type',
      `id ${JSON.stringify(id)}`,
      {
        headers: good.headers,
        body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/list', params: { _meta: envelope(true) } }),
      },
      rpcError(-32600, 400),
    );

  // Huge bodies: every shape over the body limit is refused before it is parsed.
  const over = ctx.bodyLimit + 1;
  const huge = [
    ['long string', JSON.stringify({ ...JSON.parse(reflow(valid).body), pad: 'x'.repeat(over) })],
    [
      'many rooms',
      reflow({
        ...valid,
        offline_rooms: Array.from({ length: Math.ceil(over / 10) }, (_, i) => `room-${String(i).padStart(6, '0')}`),
      }).body,
    ],
    [
      'many keys',
      JSON.stringify(Object.fromEntries(Array.from({ length: Math.ceil(over / 10) }, (_, i) => [`k${i}`, i]))),
    ],
    ['4x the limit', 'x'.repeat(4 * over)],
    ['16x the limit', '['.repeat(16 * over)],
  ] as const;
  for (const [name, body] of huge) add('huge body', name, { headers: reflow(valid).headers, body }, httpStatus(413));

  // Deeply nested bodies: in tool arguments, and as the whole message.
  for (const depth of [100, 1_000, 5_000, Math.floor(ctx.bodyLimit / 6) - 200]) {
    const nested = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
    for (const declare of [true, false]) {
      const framed = reflow({}, declare);
      add(
        'deep nesting',
        `arguments depth ${depth}${declare ? '' : ' (no extension)'}`,
        { headers: framed.headers, body: framed.body.replace('"arguments":{}', `"arguments":${nested}`) },
        toolError(/month|Unrecognized key|offline_rooms/),
      );
    }
  }
  for (const depth of [100, 10_000, ctx.bodyLimit / 2 - 100])
    add(
      'deep nesting',
      `message depth ${depth}`,
      { headers: good.headers, body: '['.repeat(depth) + ']'.repeat(depth) },
      rpcError(-32600, 400),
    );

  // Bad headers.
  const unauthorized = httpStatus(401, ['www-authenticate', /^Bearer /]);
  for (const m of ['tools/list', 'tools/call', 'tasks/get', 'server/discover']) {
    const req = call(
      m,
      m === 'tools/call' ? { name: 'reflow_month', arguments: valid } : { taskId: ctx.foreignTaskIds[0] },
    );
    const { authorization: _, ...withoutAuth } = req.headers;
    add('bad headers', `no Authorization on ${m}`, { headers: withoutAuth, body: req.body }, unauthorized);
  }
  for (const token of sample(fc.stringMatching(/^[A-Za-z0-9._~+/-]{1,64}$/), 16, 4))
    add(
      'bad headers',
      `unknown token ${token.slice(0, 8)}…`,
      call('tools/list', {}, { headers: { authorization: `Bearer ${token}` } }),
      httpStatus(401, ['www-authenticate', /invalid_token/]),
    );
  for (const authorization of [
    `Basic ${Buffer.from(`a:${ctx.token}`).toString('base64')}`,
    'Bearer',
    'Bearer ',
    `Bearer ${ctx.token}x`,
    `Bearer ${ctx.token.slice(0, -1)}`,
    `Bearer ${ctx.token} extra`,
    `Token ${ctx.token}`,
    ctx.token,
    `Bearer ${ctx.token.toUpperCase()}`,
  ])
    add(
      'bad headers',
      `Authorization "${authorization.slice(0, 20)}…"`,
      call('tools/list', {}, { headers: { authorization } }),
      unauthorized,
    );
  for (const host of [
    'evil.example.com',
    `evil.example.com:${ctx.host.split(':')[1]}`,
    'localhost.evil.com',
    '127.0.0.1.nip.io',
    'attacker',
    '10.0.0.1',
  ])
    add('bad headers', `Host ${host}`, call('tools/list', {}, { headers: { host } }), httpStatus(403));
  for (const origin of [
    'http://evil.example.com',
    'https://localhost.evil.com',
    'null',
    'not a url',
    'http://127.0.0.1.nip.io',
  ])
    add('bad headers', `Origin ${origin}`, call('tools/list', {}, { headers: { origin } }), httpStatus(403));
  for (const m of ['prompts/list', 'tools/call', 'TOOLS/LIST', 'tasks/get'])
    add(
      'bad headers',
      `Mcp-Method ${m} for tools/list`,
      call('tools/list', {}, { headers: { 'mcp-method': m } }),
      rpcError(-32020, 400),
    );
  const noMethodHeader = call('tools/list', {});
  delete noMethodHeader.headers['mcp-method'];
  add('bad headers', 'no Mcp-Method', noMethodHeader, rpcError(-32020, 400));
  for (const name of ['list_rooms', 'wrong_tool', 'REFLOW_MONTH']) {
    const req = reflow(valid, true);
    add(
      'bad headers',
      `Mcp-Name ${name} for reflow_month`,
      { headers: { ...req.headers, 'mcp-name': name }, body: req.body },
      rpcError(-32020, 400),
    );
  }
  for (const version of ['2025-06-18', 'garbage', '2099-01-01'])
    add(
      'bad headers',
      `MCP-Protocol-Version ${version}`,
      call('tools/list', {}, { headers: { 'mcp-protocol-version': version } }),
      rpcError(-32020, 400),
    );
  for (const type of [
    'text/plain',
    'application/xml',
    'multipart/form-data; boundary=x',
    'application/x-www-form-urlencoded',
  ])
    add(
      'bad headers',
      `Content-Type ${type}`,
      call('tools/list', {}, { headers: { 'content-type': type } }),
      httpStatus(415),
    );
}

function parses(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
