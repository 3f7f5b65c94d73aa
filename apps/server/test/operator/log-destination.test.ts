// The buffered log destination (logging/log-destination.ts) against the order that lost a line: a
// flush asked for while a chunk is still being written. sonic-boom ignores that flush, and what is
// left below its chunk size when the write ends waits for the next line; a server that then goes
// quiet kept its "listening" line to itself (a starter waiting for it hung, 1 start in 13).
import assert from 'node:assert/strict';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
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
