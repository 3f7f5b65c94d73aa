// "Committed before the response", seen from outside the server: the server runs as its own
// process, and the moment the first byte of each CreateTaskResult arrives, this process looks in
// the database with its own connection (the SQLite file, or the PostgreSQL database). The task
// must already be there, every time. Many requests at once keep the server's event loop busy, so
// a commit that trailed its response by even one turn would still be missing when the bytes arrive.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { test } from 'node:test';
import { openStore, type Store } from '@reflow/db';
import { mcpBody, mcpHeaders, parseMcpBody } from '../../harness/mcp-wire.ts';
import { startServerProcess, type ServerProcess } from '../../harness/server-process.ts';
import { databaseEnv, freshTestDatabase } from '../../../../scripts/test-store.mjs';
import { testSql } from '../../../../scripts/test-sql.mjs';

const ROUNDS = 5;
const AT_ONCE = 24;

interface Observed {
  taskId: string;
  /** Task ids in the database when the first byte of the answer arrived. */
  committedAtFirstByte: Set<string>;
}

/**
 * One tools/call on its own socket; the database is read the moment the first body byte arrives
 * (`look` sends its query then, synchronously; its answer may come later).
 */
function createAndLook(url: URL, args: Record<string, unknown>, look: () => Promise<Set<string>>): Promise<Observed> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: false, headers: mcpHeaders('tools/call', 'reflow_month') },
      (res) => {
        let seen: Promise<Set<string>> | undefined;
        let text = '';
        res.on('data', (chunk: Buffer) => {
          seen ??= look();
          text += chunk.toString();
        });
        res.on('end', () => {
          const body = parseMcpBody(text);
          if (!body?.result?.taskId) return reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
          seen!.then((committedAtFirstByte) => resolve({ taskId: body.result.taskId, committedAtFirstByte }), reject);
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(mcpBody('tools/call', { name: 'reflow_month', arguments: args }));
  });
}

test('every CreateTaskResult is in the database, for another process, when its first byte arrives', async (t) => {
  const database = await freshTestDatabase();
  let server: ServerProcess | undefined;
  let reader: Store | undefined;
  t.after(async () => {
    if (server && !server.dead) await server.kill();
    await reader?.close();
    await database.drop();
  });
  // No workers: the tasks stay queued, and the server does nothing but accept them.
  server = await startServerProcess(database.location, { WORKERS: '0' }, true);
  // This process's own connection to the database the server writes. On PostgreSQL a connection
  // for each request in flight, opened beforehand: a look waits for no connect and no other look,
  // so its snapshot is taken one round trip after the first byte, never later.
  const env = databaseEnv(database.location);
  reader = await openStore(
    env.DATABASE_URL
      ? { databaseUrl: env.DATABASE_URL, postgres: { poolSize: AT_ONCE } }
      : { databasePath: env.DATABASE_PATH },
  );
  const sql = await testSql(reader);
  const taskIds = () => sql.all<{ id: string }>('SELECT id FROM tasks');
  await Promise.all(Array.from({ length: AT_ONCE }, taskIds));
  const look = async () => new Set((await taskIds()).map((row) => row.id));
  const url = new URL(server.mcpUrl);

  let checked = 0;
  const early: string[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Distinct windows, so no request is deduplicated into an earlier request's task.
    const day = (n: number) => `2026-09-${String(n).padStart(2, '0')}`;
    const answers = await Promise.all(
      Array.from({ length: AT_ONCE }, (_, i) => {
        const k = round * AT_ONCE + i;
        const from = 1 + (k % 26);
        const args = {
          month: '2026-09',
          offline_rooms: ['studio-b'],
          from: day(from),
          to: day(from + Math.floor(k / 26)),
        };
        return createAndLook(url, args, look);
      }),
    );
    assert.equal(new Set(answers.map((a) => a.taskId)).size, AT_ONCE, 'each request created its own task');
    for (const { taskId, committedAtFirstByte } of answers) {
      if (!committedAtFirstByte.has(taskId)) early.push(taskId);
      checked++;
    }
  }
  assert.equal(checked, ROUNDS * AT_ONCE);
  assert.deepEqual(early, [], `${early.length} of ${checked} answers arrived before their task was committed`);
});
