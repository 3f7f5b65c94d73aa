// `reflow tasks approve|reject` as an operator runs them against a real server under APPROVAL=operator:
// an agent's reflow waits; reject needs a reason; approve applies it; a second decision is refused.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpHttpClient } from '../src/mcp-http-client.ts';
import { runReflow as reflow, scratch, server as startServer } from './cli-helpers.ts';

const AGENT = 'agent-token-0123456789abcdef';
const OPS = 'ops-token-0123456789abcdef';

test('reflow tasks approve|reject: list --awaiting, reject needs --reason, approve applies, twice is refused', async (t) => {
  const dir = scratch();
  const server = await startServer(join(dir, 'reflow.db'), {
    WORKERS: '2',
    AUTH_TOKENS: `agent:client:${AGENT},ops:operator:${OPS}`,
    APPROVAL: 'operator',
  });
  t.after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const agent = new McpHttpClient({ url: `${server.url}/mcp`, tasks: true, token: AGENT });
  const start = async (from: string, to: string) =>
    (
      await agent.request<{ taskId: string }>('tools/call', {
        name: 'reflow_month',
        arguments: { month: '2026-09', offline_rooms: ['studio-b'], from, to },
      })
    ).taskId;
  const poll = (taskId: string) => agent.request<any>('tasks/get', { taskId });
  const untilWaiting = async (taskId: string) => {
    for (let i = 0; i < 600; i++) {
      const task = await poll(taskId);
      if (/^Waiting for an operator/.test(task.statusMessage ?? '')) return task;
      await sleep(100);
    }
    throw new Error(`${taskId} never waited`);
  };
  const untilDone = async (taskId: string) => {
    for (let i = 0; i < 600; i++) {
      const task = await poll(taskId);
      if (task.status !== 'working') return task;
      await sleep(100);
    }
    throw new Error(`${taskId} never finished`);
  };
  const op = ['--url', server.url, '--token', OPS];

  const first = await start('2026-09-07', '2026-09-13');
  await untilWaiting(first);
  const listed = await reflow(['tasks', 'list', '--awaiting', ...op]);
  assert.equal(listed.status, 0, listed.stderr);
  assert.ok(listed.stdout.includes(first), listed.stdout);
  assert.match(listed.stdout, /awaiting approval 1/);
  const shown = await reflow(['tasks', 'show', first, ...op]);
  assert.match(shown.stdout, /Waiting for an operator to approve: \d+ moves/);

  const noReason = await reflow(['tasks', 'reject', first, ...op]);
  assert.notEqual(noReason.status, 0);
  assert.match(noReason.stderr, /--reason/);
  const approved = await reflow(['tasks', 'approve', first, ...op]);
  assert.equal(approved.status, 0, approved.stderr);
  assert.match(approved.stdout, new RegExp(`Approved ${first}`));
  const done = await untilDone(first);
  assert.equal(done.result.structuredContent.applied, true);
  assert.equal(done.result.structuredContent.operatorDecision.by, 'ops');
  // What the server wrote: one audited move per move the result reports.
  const movesOf = async (taskId: string) => (await server.services.store.audit.movesOf(taskId)).length;
  assert.ok(done.result.structuredContent.moved > 0);
  assert.equal(await movesOf(first), done.result.structuredContent.moved);
  const twice = await reflow(['tasks', 'approve', first, ...op]);
  assert.equal(twice.status, 1);
  assert.match(twice.stderr, /RFL_NOT_AWAITING_APPROVAL/);

  const second = await start('2026-09-14', '2026-09-20');
  await untilWaiting(second);
  const rejected = await reflow(['tasks', 'reject', second, '--reason', 'studio-b is back', ...op]);
  assert.equal(rejected.status, 0, rejected.stderr);
  const after = await untilDone(second);
  assert.equal(after.result.structuredContent.applied, false);
  assert.equal(after.result.structuredContent.operatorDecision.reason, 'studio-b is back');
  assert.equal(await movesOf(second), 0, 'rejected: nothing written');
  const asClient = await reflow(['tasks', 'approve', second, '--url', server.url, '--token', AGENT]);
  assert.equal(asClient.status, 1);
  assert.match(asClient.stderr, /operator/);
});
