// `reflow call --confirm` as a person runs it: the solved plan's question appears on the terminal,
// and the answer typed on stdin decides whether the moves are written.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reflow, REFLOW_WEEKS, scratch, server, until } from './cli-helpers.ts';

const CALL = ['call', ...REFLOW_WEEKS, '--confirm'];

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
  // The moves the server recorded for the task, read through its store.
  const moves = (await running.services.store.audit.movesOf(printed.taskId)).length;
  return { code, question, printed, moves };
}

test('reflow call --confirm, answered y: the moves are applied', async (t) => {
  const { code, question, printed, moves } = await confirmRun(t, 'y');
  assert.equal(code, 0);
  assert.equal(printed.status, 'completed');
  assert.deepEqual([printed.result.applied, printed.result.approval], [true, 'accepted']);
  assert.match(question, new RegExp(`^Apply ${printed.result.moved} moves`));
  assert.ok(moves > 0);
  assert.equal(moves, printed.result.moved);
});

test('reflow call --confirm, answered n: nothing is written', async (t) => {
  const { code, printed, moves } = await confirmRun(t, 'n');
  assert.equal(code, 0);
  assert.deepEqual([printed.status, printed.result.applied, printed.result.approval], ['completed', false, 'declined']);
  assert.equal(moves, 0);
});
