// `reflow call --confirm` as a person runs it: the solved plan's question appears on the terminal,
// and the answer typed on stdin decides whether the moves are written.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { reflow, scratch, server, until } from './cli-helpers.ts';
import { READS_THE_SQLITE_FILE, sqliteOnlyFile } from '../../../scripts/test-store.mjs';

const { test } = sqliteOnlyFile(READS_THE_SQLITE_FILE);

const CALL = [
  'call',
  '--month',
  '2026-09',
  '--offline',
  'studio-b',
  '--from',
  '2026-09-07',
  '--to',
  '2026-09-20',
  '--confirm',
];

async function confirmRun(t: { after(fn: () => unknown): void }, answer: string) {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = join(dir, 'reflow.db');
  const running = await server(db);
  t.after(() => running.close());
  const run = reflow([...CALL, '--url', running.mcpUrl, '--state-file', join(dir, 'tasks.json'), '--json']);
  // The prompt, after the question's own line (the progress line before it says "Waiting for approval: …").
  const question = await until(
    'the approval prompt',
    () =>
      run.stderr().match(/\n(Apply \d+ moves, \d+ bookings? unresolved\?[^\n]*)\nApply the moves\? \[y\/n\] $/)?.[1],
    60_000,
  );
  run.child.stdin!.write(`${answer}\n`);
  const code = await run.exited;
  const printed = JSON.parse(run.stdout().trim().split('\n').pop()!);
  const reader = new Database(db, { readonly: true });
  try {
    const moves = (
      reader.prepare('SELECT count(*) AS n FROM reflow_moves WHERE task_id = ?').get(printed.taskId) as { n: number }
    ).n;
    return { code, question, printed, moves };
  } finally {
    reader.close();
  }
}

test('reflow call --confirm, answered y: the moves are applied', async (t) => {
  const { code, question, printed, moves } = await confirmRun(t, 'y');
  assert.equal(code, 0);
  assert.equal(printed.status, 'completed');
  assert.deepEqual([printed.result.applied, printed.result.approval], [true, 'accepted']);
  assert.match(question, new RegExp(`^Apply ${printed.result.moved} moves`));
  assert.equal(moves, printed.result.moved);
});

test('reflow call --confirm, answered n: nothing is written', async (t) => {
  const { code, printed, moves } = await confirmRun(t, 'n');
  assert.equal(code, 0);
  assert.deepEqual([printed.status, printed.result.applied, printed.result.approval], ['completed', false, 'declined']);
  assert.equal(moves, 0);
});
