// The per-principal creation limits hold for the cluster, not per node: two server processes on
// one PostgreSQL, one principal creating through both in turn. The token bucket is a row in the
// database and the unfinished-task cap is counted under the owner's transaction lock, so the sum
// over both nodes never passes either limit (per-node buckets would have let twice the burst in).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase } from '../../../../scripts/postgres-for-tests.mjs';
import { startServerProcess, type ServerProcess } from '../../harness/server-process.ts';
import { reflowOn, rpc, toolText } from '../helpers/test-server.ts';

const ALICE = 'alice-token-0123456789abcdef';
const BOB = 'bob-token-0123456789abcdef';
const OPS = 'ops-token-0123456789abcdef';
/** 'task', or the refusal's code. */
async function create(node: ServerProcess, token: string, day: number): Promise<string> {
  const { body } = await rpc(node.mcpUrl, 'tools/call', { name: 'reflow_month', arguments: reflowOn(day) }, { token });
  if (body.result?.resultType === 'task') return 'task';
  return /^(RFL_[A-Z_]+):/.exec(toolText(body))?.[1] ?? toolText(body);
}

test('two nodes on one PostgreSQL: the rate limit and the unfinished-task cap hold in sum', async (t) => {
  const database = await createTestDatabase('reflow_limits');
  const env = {
    DATABASE_URL: database.url,
    DATABASE_PATH: '',
    // Only the creation limits counted in the database are under test here.
    HTTP_RATE_LIMIT_PER_MINUTE: '0',
    AUTH_TOKENS: `alice:client:${ALICE},bob:client:${BOB},ops:operator:${OPS}`,
    // No workers: every accepted task stays unfinished, so the counts are exact.
    WORKERS: '0',
    TASK_RATE_BURST: '5',
    TASK_RATE_PER_MINUTE: '1',
    MAX_ACTIVE_TASKS_PER_PRINCIPAL: '3',
  };
  const nodes: ServerProcess[] = [];
  t.after(async () => {
    for (const node of nodes) await node.kill();
    await database.drop();
  });
  nodes.push(await startServerProcess('', env, true));
  nodes.push(await startServerProcess('', env, true));
  const [a, b] = nodes;
  const apiUrl = (node: ServerProcess) => node.mcpUrl.replace(/\/mcp$/, '/api');
  const cancel = async (node: ServerProcess, taskId: string) => {
    const res = await fetch(`${apiUrl(node)}/tasks/${taskId}/cancel`, {
      method: 'POST',
      headers: { authorization: `Bearer ${OPS}` },
    });
    assert.equal(res.status, 200);
  };
  const aliceTasks = async () => {
    const res = await fetch(`${apiUrl(a)}/tasks?status=working&limit=100`, {
      headers: { authorization: `Bearer ${OPS}` },
    });
    return ((await res.json()) as any).tasks.filter((task: any) => task.owner === 'alice');
  };

  // The cap: three through a, b, a; the fourth, through b, is refused.
  assert.deepEqual(
    [await create(a, ALICE, 1), await create(b, ALICE, 2), await create(a, ALICE, 3)],
    ['task', 'task', 'task'],
  );
  assert.equal(await create(b, ALICE, 4), 'RFL_TOO_MANY_TASKS', 'the cap counts both nodes’ tasks');

  // The rate: a burst of five in all. Cancelling makes room under the cap, never in the bucket.
  const outcomes: string[] = [];
  for (let day = 4; day <= 7; day++) {
    const [oldest] = (await aliceTasks()).slice(-1);
    await cancel(day % 2 ? a : b, oldest.taskId);
    outcomes.push(await create(day % 2 ? b : a, ALICE, day));
  }
  assert.deepEqual(
    outcomes,
    ['task', 'task', 'RFL_RATE_LIMITED', 'RFL_RATE_LIMITED'],
    'five creations in sum, not five per node',
  );

  // At once, through both nodes: six creations race for a cap of three.
  const raced = await Promise.all([1, 2, 3, 4, 5, 6].map((day) => create(day % 2 ? a : b, BOB, day)));
  assert.equal(raced.filter((o) => o === 'task').length, 3, raced.join(', '));
  assert.equal(raced.filter((o) => o === 'RFL_TOO_MANY_TASKS').length, 3, raced.join(', '));
});
