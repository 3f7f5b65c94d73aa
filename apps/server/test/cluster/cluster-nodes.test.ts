// Operators see the cluster: /api/nodes lists every node sharing the store (here two servers on
// one database file) with what each runs and which one answered; a task's detail names the node
// that ran each attempt; /metrics labels its per-node gauges with the node id; the operator page
// shows the nodes in its header (real headless Chromium).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { launchBrowser, watchForErrors } from '../helpers/browser-helper.ts';
import { rpc, startTestServer, waitForTaskStatus } from '../helpers/test-server.ts';
import { getJson } from '../helpers/operator-helper.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

test('/api/nodes: both nodes, their workers and running tasks; the attempt names its node; /metrics per node; the page line', async (t) => {
  // The accept-only node takes the request; the worker node, sharing the file, runs it.
  // A fixture task that sleeps a few seconds keeps the attempt running while it is looked at; a
  // short lease makes the heartbeat (a third of it), which reports what a node runs, frequent.
  const fixtures = { MCP_CONFORMANCE_FIXTURES: 'true', LEASE_MS: '1500' };
  const front = await startTestServer({ ...fixtures, WORKERS: '0' });
  const worker = await startTestServer({ ...fixtures, WORKERS: '2' }, front.databasePath);
  t.after(async () => {
    await worker.close({ keepDatabase: true });
    await front.close();
  });
  const frontId = front.services.engine.instanceId;
  const workerId = worker.services.engine.instanceId;

  const fromFront = await getJson(`${front.url}/api/nodes`);
  assert.equal(fromFront.status, 200);
  assert.equal(fromFront.body.answeredBy, frontId);
  assert.deepEqual(fromFront.body.nodes.map((n: any) => n.id).sort(), [frontId, workerId].sort());
  const listed = fromFront.body.nodes.find((n: any) => n.id === workerId);
  assert.equal(listed.pid, process.pid);
  assert.equal(listed.workers, 2);
  assert.ok(Date.parse(listed.heartbeatAt) >= Date.parse(listed.startedAt));
  assert.equal((await getJson(`${worker.url}/api/nodes`)).body.answeredBy, workerId, 'says which node answered');

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  const errors = watchForErrors(page, (line) => t.diagnostic(line));
  await page.goto(`${front.url}/ui`);
  const line = page.locator('#cluster-line');
  await line.locator('.cluster-count', { hasText: '2 nodes' }).waitFor({ timeout: 15_000 });
  assert.match(await line.locator(`[data-node-id="${workerId}"]`).innerText(), /idle/);

  // Created through the worker node, which claims it at once (on SQLite another process would wait for its sweep).
  const { body: created } = await rpc(worker.mcpUrl, 'tools/call', {
    name: 'slow_compute',
    arguments: { seconds: 6, label: 'seen' },
  });
  const taskId: string = created.result.taskId;
  assert.ok(taskId, JSON.stringify(created));
  // The worker's next heartbeat reports the attempt it runs.
  const deadline = loadAwareDeadline(5_000);
  let running: string[] = [];
  while (!deadline.passed()) {
    const { body } = await getJson(`${front.url}/api/nodes`);
    running = body.nodes.find((n: any) => n.id === workerId).running;
    if (running.includes(taskId)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.deepEqual(running, [taskId], 'the worker node runs the task');

  await line.locator(`.cluster-node[data-node-id="${workerId}"][data-running="1"]`).waitFor({ timeout: 15_000 });
  assert.match(await line.innerText(), new RegExp(`runs ${taskId.slice(0, 12)}`));
  assert.equal(await line.locator(`.cluster-node.this-node[data-node-id="${frontId}"]`).count(), 1);

  await waitForTaskStatus(front.mcpUrl, taskId, ['completed']);
  const detail = await getJson(`${front.url}/api/tasks/${taskId}`);
  assert.deepEqual(
    detail.body.attempts.map((a: any) => [a.attempt, a.node]),
    [[1, workerId]],
    'the attempt records the node that ran it',
  );
  // Opened as an operator does, by clicking its row: a second page.goto may load the page again,
  // aborting the polls in flight, which the error watch rightly counts as failed requests.
  await page.locator(`tr[data-task-id="${taskId}"]`).click();
  await page.locator(`#detail .ev-node[data-node-id="${workerId}"]`).waitFor({ timeout: 15_000 });
  assert.deepEqual(errors, []);

  // Each node's scrape names itself; the per-node gauges carry the node label.
  for (const [server, id, workers] of [
    [front, frontId, 0],
    [worker, workerId, 2],
  ] as const) {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    assert.match(text, new RegExp(`^reflow_task_attempts_running\\{node="${id}"\\} 0$`, 'm'));
    assert.match(
      text,
      new RegExp(`^reflow_node_info\\{node="${id}",host="[^"]+",pid="${process.pid}",workers="${workers}"\\} 1$`, 'm'),
    );
  }
});

test('/api/nodes needs an operator token when tokens are configured', async (t) => {
  const server = await startTestServer({
    AUTH_TOKENS: 'alice:client:alice-token-0123456789abcdef,ops:operator:ops-token-0123456789abcdef',
  });
  t.after(() => server.close());
  assert.equal((await fetch(`${server.url}/api/nodes`)).status, 401);
  const client = await fetch(`${server.url}/api/nodes`, {
    headers: { authorization: 'Bearer alice-token-0123456789abcdef' },
  });
  assert.equal(client.status, 403);
  const ops = await getJson(`${server.url}/api/nodes`, {
    headers: { authorization: 'Bearer ops-token-0123456789abcdef' },
  });
  assert.equal(ops.status, 200);
  assert.equal(ops.body.nodes.length, 1);
  const { body: rpcBody } = await rpc(server.mcpUrl, 'tools/list', {}, { token: 'alice-token-0123456789abcdef' });
  assert.ok(rpcBody.result, 'the client token itself works on /mcp');
});
