// The buffered log destination (logging/log-destination.ts) against the order that lost a line: a
// flush asked for while a chunk is still being written. sonic-boom ignores that flush, and what is
// left below its chunk size when the write ends waits for the next line; a server that then goes
// quiet kept its "listening" line to itself (a starter waiting for it hung, 1 start in 13).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs, { constants, mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { bufferedStdout } from '../../src/logging/log-destination.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';

test('a line buffered behind a chunk being written goes out with no line after it, flushed meanwhile', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-log-'));
  const file = join(dir, 'stdout');
  const fd = openSync(file, 'w');
  t.after(() => {
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  const destination = bufferedStdout(fd);
  // A whole chunk: sonic-boom starts an asynchronous write at once, in flight until a later tick.
  destination.write(`${JSON.stringify({ msg: 'a long line', pad: 'x'.repeat(9000) })}\n`);
  // Below the chunk size, buffered behind that write; the flush comes while it is in flight.
  destination.write(`${JSON.stringify({ msg: 'studio reflow server listening' })}\n`);
  destination.flush();
  // No further line is written: only the destination's own timer can send it (every 100 ms).
  const deadline = loadAwareDeadline(2_000);
  const written = () => readFileSync(file, 'utf8');
  while (!written().includes('listening') && !deadline.passed()) await sleep(20);
  assert.match(written(), /"msg":"studio reflow server listening"\}\n$/, 'the buffered line is out, whole');
});

test('a stdout that no longer takes writes (EPIPE) is not retried on every tick while the server is quiet', async (t) => {
  // A FIFO whose reader has gone: every write fails with EPIPE, as a pipe to a dead log collector.
  const dir = mkdtempSync(join(tmpdir(), 'reflow-log-'));
  const fifo = join(dir, 'stdout');
  execFileSync('mkfifo', [fifo]);
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
  const fd = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
  closeSync(reader);
  const attempts: number[] = [];
  const realWrite = fs.write;
  (fs as { write: unknown }).write = (target: number, ...rest: unknown[]) => {
    if (target === fd) attempts.push(Date.now());
    return (realWrite as (...args: unknown[]) => unknown)(target, ...rest);
  };
  t.after(() => {
    (fs as { write: unknown }).write = realWrite;
    closeSync(fd);
    rmSync(dir, { recursive: true, force: true });
  });
  const destination = bufferedStdout(fd);
  destination.write(`${JSON.stringify({ msg: 'the last line before the collector died' })}\n`);
  destination.flush();
  // Quiet from here on: no line is written for 3 s.
  await sleep(3_000);
  const lastSecond = attempts.filter((at) => at > Date.now() - 1_000).length;
  assert.equal(lastSecond, 0, `writes tried in the last quiet second: ${lastSecond} (${attempts.length} in all)`);
});
