// /metrics after the demo, and the JSON log lines that carry request and task ids.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import pino from 'pino';
import { loadConfig, startServer } from '../../src/index.ts';
import { rpc, startTestServer } from '../helpers/test-server.ts';
import { freshTestDatabase, onPostgres } from '../../../../scripts/test-store.mjs';
import { runDemoReflow, startReflow } from '../helpers/operator-helper.ts';

const sample = (text: string, name: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return line === undefined ? undefined : Number(line.slice(name.length + 1));
};

test('/metrics after the demo: the completed task, a solve and an apply duration, queue, pool and HTTP counts', async (t) => {
  const server = await startTestServer();
  t.after(() => server.close());
  await runDemoReflow(server.mcpUrl);
  await fetch(`${server.url}/api/tasks?status=bogus`);
  const res = await fetch(`${server.url}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  assert.equal(sample(text, 'reflow_tasks{status="completed"}'), 1);
  assert.equal(sample(text, 'reflow_tasks{status="working"}'), 0);
  assert.equal(sample(text, 'reflow_solve_duration_seconds_count'), 1);
  assert.ok(sample(text, 'reflow_solve_duration_seconds_sum')! > 0);
  assert.equal(sample(text, 'reflow_apply_duration_seconds_count'), 1);
  assert.equal(sample(text, 'reflow_task_queue_depth'), 0);
  assert.equal(sample(text, 'reflow_worker_pool_size'), 2);
  assert.ok(sample(text, 'reflow_worker_pool_utilisation')! >= 0);
  assert.ok(sample(text, 'reflow_http_requests_total{route="/mcp",method="POST",status="200"}')! >= 2);
  assert.equal(sample(text, 'reflow_http_requests_total{route="/api/tasks",method="GET",status="400"}'), 1);
  assert.match(text, /# TYPE reflow_solve_duration_seconds histogram/);
});

test('queued tasks show as queue depth; an accept-only process reports its pool as full', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  await startReflow(server.mcpUrl);
  await startReflow(server.mcpUrl, { to: '2026-09-08' });
  const text = await (await fetch(`${server.url}/metrics`)).text();
  assert.equal(sample(text, 'reflow_tasks{status="working"}'), 2);
  assert.equal(sample(text, 'reflow_task_queue_depth'), 2);
  assert.equal(sample(text, 'reflow_worker_pool_utilisation'), 1);
  // One at a time: each create its own group commit.
  assert.equal(sample(text, 'reflow_task_creates_committed_total'), 2);
  assert.equal(sample(text, 'reflow_task_create_commits_total'), 2);
});

test('polls are counted with the statements that answered them (PostgreSQL, which batches them); SQLite has no such counters', async (t) => {
  const server = await startTestServer({ WORKERS: '0' });
  t.after(() => server.close());
  const taskId = await startReflow(server.mcpUrl);
  const counted = async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    return {
      statements: sample(text, 'reflow_task_poll_statements_total'),
      polls: sample(text, 'reflow_task_polls_batched_total'),
    };
  };
  const before = await counted();
  const polled = await Promise.all(Array.from({ length: 20 }, () => rpc(server.mcpUrl, 'tasks/get', { taskId })));
  for (const { body } of polled) assert.equal(body.result?.taskId, taskId);
  const after = await counted();
  if (!onPostgres()) return assert.deepEqual(after, { statements: undefined, polls: undefined });
  const polls = after.polls! - before.polls!;
  const statements = after.statements! - before.statements!;
  assert.ok(polls >= 20, `the 20 polls were counted (${polls})`);
  assert.ok(statements >= 1 && statements <= polls, `${statements} statements for ${polls} polls`);
});

test('JSON log lines about a task carry its id, and request lines the request id', async (t) => {
  const lines: any[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l));
      done();
    },
  });
  const database = await freshTestDatabase();
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    ...database.env,
    WORKERS: '2',
    LOG_LEVEL: 'info',
  });
  const server = await startServer(config, pino({ level: 'info' }, sink));
  t.after(async () => {
    await server.close();
    await database.drop();
  });
  const { taskId } = await runDemoReflow(`${server.url}/mcp`);
  const res = await fetch(`${server.url}/api/tasks/${taskId}`, { headers: { 'x-request-id': 'req-operator-7' } });
  assert.equal(res.status, 200);

  const attempt = lines.filter((l) => l.msg?.startsWith('task attempt'));
  assert.ok(attempt.length >= 2, 'the engine logged the attempt');
  for (const l of attempt) assert.equal(l.taskId, taskId);
  const request = lines.filter((l) => l.reqId === 'req-operator-7');
  assert.ok(request.some((l) => l.msg === 'request completed' && l.res?.statusCode === 200));
  for (const l of request.filter((l) => l.msg !== 'incoming request'))
    assert.equal(l.taskId, taskId, JSON.stringify(l));
});
