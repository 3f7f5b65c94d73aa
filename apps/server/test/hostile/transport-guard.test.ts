// DNS rebinding and cross-origin use, over raw sockets (fetch cannot forge Host): a page on
// another site reaching this server through a rebound name is refused; CORS is off unless configured.
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { startTestServer } from '../helpers/test-server.ts';
import { closeRawAgent, rawPost } from '../helpers/raw-http.ts';

const DISCOVER = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'server/discover',
  params: {
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const headers = (extra: Record<string, string>) => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'server/discover',
  ...extra,
});
after(() => closeRawAgent());

test('bound to loopback: loopback Host and Origin pass, any other name is refused with 403', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const port = new URL(server.url).port;
  for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost', `[::1]:${port}`]) {
    const res = await rawPost(server.mcpUrl, headers({ host, origin: `http://${host}` }), DISCOVER);
    assert.equal(res.status, 200, `Host ${host}: ${res.text}`);
  }
  for (const host of ['evil.example.com', `evil.example.com:${port}`, 'localhost.evil.com', '127.0.0.1.nip.io']) {
    const res = await rawPost(server.mcpUrl, headers({ host }), DISCOVER);
    assert.equal(res.status, 403, `Host ${host}`);
    assert.match(res.json.error.message, /Invalid Host/);
  }
  const origin = await rawPost(
    server.mcpUrl,
    headers({ host: `127.0.0.1:${port}`, origin: 'http://evil.example.com' }),
    DISCOVER,
  );
  assert.equal(origin.status, 403);
  assert.match(origin.json.error.message, /Invalid Origin/);
  // Probes are reached by address (load balancers, pod IPs) and stay open.
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
});

test('ALLOWED_HOSTS replaces the loopback names', async (t) => {
  const server = await startTestServer({ ALLOWED_HOSTS: 'reflow.internal' });
  t.after(() => server.close());
  assert.equal((await rawPost(server.mcpUrl, headers({ host: 'reflow.internal:443' }), DISCOVER)).status, 200);
  assert.equal(
    (await rawPost(server.mcpUrl, headers({ host: `localhost:${new URL(server.url).port}` }), DISCOVER)).status,
    403,
  );
});

test('CORS is off by default and answers only the configured origins when on', async (t) => {
  const off = await startTestServer();
  t.after(() => off.close());
  const preflight = (url: string, origin: string) =>
    fetch(url, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, mcp-method',
      },
    });
  const plain = await preflight(off.mcpUrl, 'http://localhost:5173');
  assert.equal(plain.headers.get('access-control-allow-origin'), null);

  const on = await startTestServer({
    CORS_ORIGINS: 'http://localhost:5173',
    AUTH_TOKENS: 'ui:operator:ui-token-0123456789abcdef',
  });
  t.after(() => on.close());
  const allowed = await preflight(on.mcpUrl, 'http://localhost:5173');
  assert.ok(allowed.status < 300, `preflight ${allowed.status}`);
  assert.equal(allowed.headers.get('access-control-allow-origin'), 'http://localhost:5173');
  assert.match(allowed.headers.get('access-control-allow-headers') ?? '', /authorization/);
  const other = await preflight(on.mcpUrl, 'http://127.0.0.1:9999');
  assert.notEqual(other.headers.get('access-control-allow-origin'), 'http://127.0.0.1:9999');
});

test('without tokens on a non-loopback bind (UNAUTHENTICATED_BIND), Host is still held to loopback names', async (t) => {
  const server = await startTestServer({ HOST: '0.0.0.0', UNAUTHENTICATED_BIND: 'true' });
  t.after(() => server.close());
  const port = new URL(server.url).port;
  const url = `http://127.0.0.1:${port}/mcp`;
  assert.equal((await rawPost(url, headers({ host: `localhost:${port}` }), DISCOVER)).status, 200);
  assert.equal((await rawPost(url, headers({ host: `studio.example.com:${port}` }), DISCOVER)).status, 403);
});

test('a Host or Origin refusal carries an application error code, outside the range JSON-RPC and MCP reserve', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  const port = new URL(server.url).port;
  const refusals = [
    await rawPost(server.mcpUrl, headers({ host: 'evil.example.com' }), DISCOVER),
    await rawPost(server.mcpUrl, headers({ host: `127.0.0.1:${port}`, origin: 'http://evil.example.com' }), DISCOVER),
  ];
  for (const res of refusals) {
    assert.equal(res.status, 403);
    // 2026-07-28: -32000..-32019 is legacy (new code SHOULD NOT use it), -32020..-32099 belongs to
    // the specification, and application codes SHOULD be allocated outside -32768..-32000.
    const code = res.json.error.code;
    assert.ok(Number.isInteger(code) && (code > -32000 || code < -32768), `code ${code}`);
    assert.equal(code, -31403);
    assert.equal(res.json.id, null);
  }
});
