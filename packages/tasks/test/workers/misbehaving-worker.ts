// A worker for the pool tests that misbehaves on request: crashes its thread, runs out of memory,
// ignores the stop flag, or stops politely when asked.
import { workerTask } from '../../src/index.ts';

export type Misbehaviour = 'exit' | 'oom' | 'spin' | 'cooperative';

export default workerTask<{ mode: Misbehaviour }, string>(async ({ mode }, ctx) => {
  if (mode === 'exit') process.exit(3);
  if (mode === 'oom') {
    const hoard: number[][] = [];
    for (;;) hoard.push(new Array(1_000_000).fill(Math.random()));
  }
  ctx.report('started');
  if (mode === 'spin') for (;;) Math.sqrt(Math.random());
  while (!ctx.shouldStop()) await new Promise((r) => setTimeout(r, 5));
  return 'stopped';
});
