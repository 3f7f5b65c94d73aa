// "Committed before the response", seen from outside the server: the server runs as its own
// process, and the moment the first byte of each CreateTaskResult arrives, this process looks in
// the SQLite file with its own connection. The task must already be there, every time. Many
// requests at once keep the server's event loop busy, so a commit that trailed its response by
// even one turn would still be missing when the bytes arrive.
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { mcpBody, mcpHeaders, parseMcpBody } from '../harness/mcp-wire.ts';
import { startServerProcess } from '../harness/server-process.ts';
import { READS_THE_SQLITE_FILE, sqliteOnlyFile } from '../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile(READS_THE_SQLITE_FILE);

const ROUNDS = 5;
const AT_ONCE = 24;

interface Observed {
  taskId: string;
  /** Task ids in the file when the first byte of the answer arrived. */
  committedAtFirstByte: Set<string>;
}

/** One tools/call on its own socket; the file is read the moment the first body byte arrives. */
function createAndLook(url: URL, args: Record<string, unknown>, look: () => Set<string>): Promise<Observed> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: false, headers: mcpHeaders('tools/call', 'reflow_month') },
      (res) => {
        let seen: Set<string> | undefined;
        let text = '';
        res.on('data', (chunk: Buffer) => {
          seen ??= look();
          text += chunk.toString();
        });
        res.on('end', () => {
          const body = parseMcpBody(text);
          if (!body?.result?.taskId) return reject(new Error(`HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
          resolve({ taskId: body.result.taskId, committedAtFirstByte: seen! });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(mcpBody('tools/call', { name: 'reflow_month', arguments: args }));
  });
}

test('every CreateTaskResult is in the database file, for another process, when its first byte arrives', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-commit-'));
  const databasePath = join(dir, 'reflow.db');
  // No workers: the tasks stay queued, and the server does nothing but accept them.
  const server = await startServerProcess(databasePath, { WORKERS: '0' }, true);
  t.after(async () => {
    if (!server.dead) await server.kill();
    rmSync(dir, { recursive: true, force: true });
  });
  const reader = new Database(databasePath, { readonly: true, fileMustExist: true });
  t.after(() => reader.close());
  const ids = reader.prepare('SELECT id FROM tasks').pluck();
  const look = () => new Set(ids.all() as string[]);
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
