// Authentication, roles and ownership over a real socket: who may call, and whose tasks they see.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import pino from 'pino';
import { REDACT_PATHS } from '../../src/auth/security.ts';
import { loadConfig, startServer } from '../../src/index.ts';
import { rpc, startTestServer, type TestServer } from '../helpers/test-server.ts';
import { freshTestDatabase } from '../../../../scripts/test-store.mjs';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const OPS = 'ops-token-0123456789abcdef';
const AUTH_TOKENS = `alice:client:${ALICE},bob:client:${BOB},ops:operator:${OPS}`;
const REFLOW = { month: '2026-09', offline_rooms: ['studio-b'], from: '2026-09-07', to: '2026-09-20', dry_run: true };

const post = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });

describe('bearer tokens and roles', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer({ AUTH_TOKENS, WORKERS: '0' });
  });
  after(async () => (server as TestServer | undefined)?.close()); // unset when before() failed

  test('no token on /mcp: 401 with a Bearer challenge; an unknown token: 401 invalid_token; a known one gets through', async () => {
    const none = await post(server.mcpUrl);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Bearer realm="studio-reflow"/);
    assert.equal(((await none.json()) as { code: string }).code, 'RFL_UNAUTHENTICATED');
    const wrong = await post(server.mcpUrl, { authorization: `Bearer ${ALICE}x` });
    assert.equal(wrong.status, 401);
    assert.match(wrong.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    const listed = await rpc(server.mcpUrl, 'tools/list', {}, { token: ALICE });
    assert.equal(listed.status, 200);
    assert.ok(listed.body.result.tools.length >= 3);
  });

  test('probes stay open without a token', async () => {
    assert.equal((await fetch(`${server.url}/healthz`)).status, 200);
  });

  test('/api needs an operator: no token 401, a client 403, an operator passes (whatever the route then answers)', async () => {
    for (const path of ['/api', '/api/tasks', '/api/tasks/tsk_0/cancel']) {
      assert.equal((await fetch(`${server.url}${path}`)).status, 401, path);
      const client = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${ALICE}` } });
      assert.equal(client.status, 403, path);
      assert.equal(((await client.json()) as { code: string }).code, 'RFL_FORBIDDEN');
      const operator = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${OPS}` } });
      assert.ok(![401, 403].includes(operator.status), `${path}: operator got ${operator.status}`);
    }
  });

  test("principal A cannot read, update or cancel B's task: the answer is the unknown-id answer; operators see and cancel it", async () => {
    const created = await rpc(server.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: REFLOW }, { token: BOB });
    const bobTask = created.body.result.taskId as string;
    assert.match(bobTask, /^tsk_/);
    const unknownTask = `tsk_${'0'.repeat(40)}`;
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel']) {
      const params = (taskId: string) => ({ taskId, inputResponses: { answer: { action: 'accept' } } });
      const foreign = await rpc(server.mcpUrl, method, params(bobTask), { token: ALICE });
      const unknown = await rpc(server.mcpUrl, method, params(unknownTask), { token: ALICE });
      assert.equal(foreign.body.error?.code, -32602, `${method}: ${JSON.stringify(foreign.body)}`);
      assert.equal(foreign.status, unknown.status);
      assert.deepEqual(
        JSON.parse(JSON.stringify(foreign.body).replaceAll(bobTask, 'ID')),
        JSON.parse(JSON.stringify(unknown.body).replaceAll(unknownTask, 'ID')),
        method,
      );
    }
    // B's task is untouched and B still sees it.
    const own = await rpc(server.mcpUrl, 'tasks/get', { taskId: bobTask }, { token: BOB });
    assert.equal(own.body.result.status, 'working');
    // An operator sees it and cancels it; the history records who did what.
    const seen = await rpc(server.mcpUrl, 'tasks/get', { taskId: bobTask }, { token: OPS });
    assert.equal(seen.body.result.taskId, bobTask);
    const cancelled = await rpc(server.mcpUrl, 'tasks/cancel', { taskId: bobTask }, { token: OPS });
    assert.deepEqual(cancelled.body.result?.resultType, 'complete');
    assert.equal(
      (await rpc(server.mcpUrl, 'tasks/get', { taskId: bobTask }, { token: BOB })).body.result.status,
      'cancelled',
    );
    const events = (await server.services.store.tasks.events(bobTask)).map((e) => ({
      kind: e.kind,
      by: (e.data as { by?: string } | null)?.by,
    }));
    assert.deepEqual(events, [
      { kind: 'created', by: 'bob' },
      { kind: 'cancelled', by: 'ops' },
    ]);
    assert.equal((await server.services.engine.get(bobTask))?.owner, 'bob');
  });

  test('the operator API: a client is refused, an operator lists every task and its cancel is recorded under its name', async () => {
    const created = await rpc(
      server.mcpUrl,
      'tools/call',
      { name: 'reflow_month', arguments: { ...REFLOW, from: '2026-09-02', to: '2026-09-03' } },
      { token: ALICE },
    );
    const taskId = created.body.result.taskId as string;
    const asAlice = await fetch(`${server.url}/api/tasks/${taskId}`, { headers: { authorization: `Bearer ${ALICE}` } });
    assert.equal(asAlice.status, 403, 'even for her own task: /api is the operator console');
    const list = await fetch(`${server.url}/api/tasks`, { headers: { authorization: `Bearer ${OPS}` } });
    assert.equal(list.status, 200);
    assert.ok(((await list.json()) as { tasks: { taskId: string }[] }).tasks.some((t) => t.taskId === taskId));
    const cancel = await fetch(`${server.url}/api/tasks/${taskId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPS}` },
    });
    assert.equal(cancel.status, 200);
    const events = (await server.services.store.tasks.events(taskId)).map((e) => ({
      kind: e.kind,
      by: (e.data as { by?: string } | null)?.by,
    }));
    assert.deepEqual(events, [
      { kind: 'created', by: 'alice' },
      { kind: 'cancelled', by: 'ops' },
    ]);
  });
});

test('AUTH_TOKENS_FILE holds only SHA-256 hashes, and its tokens authenticate', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-tokens-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'tokens.json');
  const hash = (token: string) => createHash('sha256').update(token).digest('hex');
  writeFileSync(
    file,
    JSON.stringify([{ principal: 'carol', role: 'operator', sha256: hash('carol-token-0123456789abcdef') }]),
  );
  const server = await startTestServer({ AUTH_TOKENS_FILE: file, WORKERS: '0' });
  t.after(() => server.close());
  assert.equal((await rpc(server.mcpUrl, 'tools/list', {}, { token: 'carol-token-0123456789abcdef' })).status, 200);
  assert.equal(
    (await rpc(server.mcpUrl, 'tools/list', {}, { token: hash('carol-token-0123456789abcdef') })).status,
    401,
    'the stored hash is not itself a token',
  );
});

test('a bad token configuration stops the start and names the problem', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ AUTH_TOKENS: 'alice:client:short' }, /AUTH_TOKENS entry 1 \(alice\): the token must be at least 16 characters/],
    [{ AUTH_TOKENS: 'alice:admin:0123456789abcdefgh' }, /role must be client or operator/],
    [{ AUTH_TOKENS: `alice:client:${ALICE},alice:operator:${OPS}` }, /principal alice is given two roles/],
    [{ AUTH_TOKENS: `alice:client:${ALICE},bob:client:${ALICE}` }, /two principals share one token/],
    [{ AUTH_TOKENS_FILE: '/nonexistent/tokens.json' }, /AUTH_TOKENS_FILE \/nonexistent\/tokens.json/],
  ];
  for (const [env, message] of cases) {
    const config = loadConfig({ PORT: '0', DATABASE_PATH: ':memory:', WORKERS: '0', LOG_LEVEL: 'silent', ...env });
    await assert.rejects(startServer(config, pino({ level: 'silent' })), message);
  }
});

test('tokens never reach the logs, even at trace level', async (t) => {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  const database = await freshTestDatabase();
  const config = loadConfig({
    PORT: '0',
    ...database.env,
    WORKERS: '0',
    LOG_LEVEL: 'trace',
    AUTH_TOKENS,
  });
  const server = await startServer(config, pino({ level: 'trace' }, sink));
  t.after(async () => {
    await server.close();
    await database.drop();
  });
  const mcpUrl = `${server.url}/mcp`;
  await rpc(mcpUrl, 'tools/list', {}, { token: ALICE });
  await rpc(mcpUrl, 'tools/call', { name: 'reflow_month', arguments: REFLOW }, { token: BOB });
  await post(mcpUrl, { authorization: `Bearer ${OPS}-wrong` });
  await fetch(`${server.url}/api/tasks`, { headers: { authorization: `Bearer ${ALICE}` } });
  const log = lines.join('');
  assert.ok(log.length > 0, 'the server logged something');
  for (const token of [ALICE, BOB, OPS]) assert.ok(!log.includes(token), `a token appeared in the logs`);
});

test("the server's own logger redacts an Authorization header wherever a request object is logged", () => {
  const lines: string[] = [];
  const sink = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  const logger = pino({ redact: REDACT_PATHS }, sink);
  logger.info({ req: { headers: { authorization: `Bearer ${ALICE}` } } }, 'a');
  logger.info({ headers: { authorization: `Bearer ${BOB}` } }, 'b');
  logger.info({ request: { headers: { authorization: `Bearer ${OPS}` } } }, 'c');
  const log = lines.join('');
  for (const token of [ALICE, BOB, OPS]) assert.ok(!log.includes(token));
  assert.equal(log.match(/\[Redacted\]/g)?.length, 3);
});
