// The CLI's state file under several writers: four processes add and update tasks at the same time,
// and not one entry is lost; and under kills: a writer SIGKILLed at any moment never leaves half a
// file, for a reader at the same time or for the next process (temp file + rename, never in place).
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { StateFile } from '../src/client/state-file.ts';
import { childScript } from '../../../scripts/test-build.mjs';

const WRITERS = 4;
const EACH = 30;

test('concurrent reflow processes sharing a state file keep every task', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-state-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'tasks.json');
  const writer = join(import.meta.dirname, 'state-file-writer.ts');
  const exits = Array.from({ length: WRITERS }, (_, w) => {
    const child = spawn(process.execPath, [...childScript(writer), path, 'add', `w${w}`, String(EACH)], {
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

const KILLS = 24;
const LANES = 3;
const TASKS = 6;
/** Big enough (about 3 MB a file) that a write takes a while and a kill can land inside one. */
const PAYLOAD = 'x'.repeat(512 * 1024);

/** Every read parses whole, with every task and every byte of its payload: never half a file. */
function readWhole(path: string): void {
  const tasks = new StateFile(path).read();
  assert.equal(tasks.length, TASKS, `${path}: every task is there`);
  for (const t of tasks) {
    assert.equal((t.arguments as { payload: string }).payload.length, PAYLOAD.length, `${t.taskId}: whole payload`);
    assert.ok(['working', 'input_required'].includes(t.status), t.status);
  }
}

/** Writers still running; the test kills them all when it ends, passed or failed. */
const writers = new Set<ChildProcess>();
/** Set when one lane failed: the others stop at their next step instead of running on. */
let stopped = false;
/** Read through a call: another lane may set it while this one awaits. */
const halted = () => stopped;

/** One writer after another rewrites the file and is SIGKILLed at a random moment; reads go on all the while. */
async function killWritersRepeatedly(path: string, kills: number): Promise<{ reads: number; delays: number[] }> {
  const state = new StateFile(path);
  const now = new Date().toISOString();
  for (let i = 0; i < TASKS; i++)
    state.upsert({
      taskId: `t${i}`,
      url: 'http://127.0.0.1:1/mcp',
      tool: 'reflow_month',
      arguments: { payload: PAYLOAD },
      ttlMs: null,
      pollIntervalMs: 100,
      createdAt: now,
      status: 'working',
      updatedAt: now,
    });
  const writer = join(import.meta.dirname, 'state-file-writer.ts');
  let reads = 0;
  const delays: number[] = [];
  for (let k = 0; k < kills && !halted(); k++) {
    const child = spawn(process.execPath, [...childScript(writer), path, 'rewrite'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    writers.add(child);
    child.on('exit', () => writers.delete(child));
    const exited = new Promise<string>((resolve) =>
      child.on('exit', (code, signal) => resolve(signal ?? `exit ${code}`)),
    );
    // Bounded: the writer says when its first whole rewrite is done, or the test fails.
    const ready = await Promise.race([
      new Promise<string>((resolve) => child.stdout.once('data', () => resolve('ready'))),
      exited.then((how) => `writer ended early (${how})`),
      sleep(60_000, 'writer never got going in 60 s', { ref: false }),
    ]);
    if (ready !== 'ready') child.kill('SIGKILL');
    assert.equal(ready, 'ready');
    const delay = Math.random() * 150;
    delays.push(delay);
    const killAt = performance.now() + delay;
    // At least two reads while it rewrites, however busy the machine (a read of the whole file can
    // outlast a short delay there), then more until the kill's moment.
    let readsNow = 0;
    while ((readsNow < 2 || performance.now() < killAt) && !halted()) {
      readWhole(path);
      reads++;
      readsNow++;
      await setImmediate();
    }
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    // What the crash left: whole. Its lock goes with it, as a person would remove it.
    readWhole(path);
    reads++;
    rmSync(`${path}.lock`, { force: true });
  }
  return { reads, delays };
}

test('a writer SIGKILLed at random moments mid-rewrite, many times: every read, during and after, parses whole', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-state-kill-'));
  t.after(async () => {
    stopped = true;
    const alive = [...writers].filter((w) => w.exitCode === null && w.signalCode === null);
    await Promise.all(alive.map((w) => new Promise((resolve) => w.once('exit', resolve).kill('SIGKILL'))));
    rmSync(dir, { recursive: true, force: true });
  });
  const lanes = await Promise.all(
    Array.from({ length: LANES }, (_, lane) =>
      killWritersRepeatedly(join(dir, `lane${lane}`, 'tasks.json'), KILLS / LANES).catch((error) => {
        stopped = true;
        throw error;
      }),
    ),
  );
  const reads = lanes.reduce((n, l) => n + l.reads, 0);
  const delays = lanes.flatMap((l) => l.delays).sort((a, b) => a - b);
  t.diagnostic(
    `${KILLS} kills at ${delays[0].toFixed(0)}–${delays.at(-1)!.toFixed(0)} ms into a rewrite loop, ${reads} whole reads`,
  );
  assert.ok(reads >= KILLS * 3, `reads happened during the rewrites too (${reads})`);
});
