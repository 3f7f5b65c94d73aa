// A worker for the pool tests that misbehaves on request: crashes its thread, runs out of memory,
// ignores the stop flag, or stops politely when asked; or tells its thread's CPU priority.
import { readlinkSync } from 'node:fs';
import { getPriority } from 'node:os';
import { workerTask } from '../../src/index.ts';

export type Misbehaviour = 'exit' | 'oom' | 'spin' | 'cooperative' | 'niceness';

export default workerTask<{ mode: Misbehaviour }, string>(async ({ mode }, ctx) => {
  if (mode === 'exit') process.exit(3);
  // This thread's own nice value (Linux: per thread).
  if (mode === 'niceness') return String(getPriority(Number(readlinkSync('/proc/thread-self').split('/').pop())));
  if (mode === 'oom') {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array(1_000_000).fill(Math.random()));
  }
  ctx.report('started');
  if (mode === 'spin') for (;;) Math.sqrt(Math.random());
  while (!ctx.shouldStop()) await new Promise((r) => setTimeout(r, 5));
  return 'stopped';
});
