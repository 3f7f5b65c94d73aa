// The CLI's state file under several writers: four processes add and update tasks at the same time,
// and not one entry is lost or left half-written.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

const WRITERS = 4;
const EACH = 30;

test('concurrent reflow processes sharing a state file keep every task', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-state-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'tasks.json');
  const writer = join(import.meta.dirname, 'state-file-writer.ts');
  const exits = Array.from({ length: WRITERS }, (_, w) => {
    const child = spawn(process.execPath, ['--import', 'tsx', writer, path, `w${w}`, String(EACH)], {
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    return new Promise<number | null>((resolve) => child.on('exit', resolve));
  });
  assert.deepEqual(await Promise.all(exits), Array(WRITERS).fill(0));
  const tasks = (JSON.parse(readFileSync(path, 'utf8')) as { tasks: { taskId: string; status: string }[] }).tasks;
  assert.equal(tasks.length, WRITERS * EACH);
  assert.ok(tasks.every((x) => x.status === 'completed'));
  assert.deepEqual(readdirSync(dir), ['tasks.json'], 'no lock or temp file left behind');
});
