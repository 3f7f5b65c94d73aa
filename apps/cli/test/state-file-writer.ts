// A separate process that writes a state file, for the tests of concurrent writers and of kills:
//   <path> add <prefix> <count>   adds `count` tasks one by one, marking each completed;
//   <path> rewrite                 rewrites every task's status, over and over, until killed.
import { StateFile } from '../src/client/state-file.ts';

const [path, mode, prefix, count] = process.argv.slice(2);
const state = new StateFile(path);
if (mode === 'add') {
  for (let i = 0; i < Number(count); i++) {
    const now = new Date().toISOString();
    state.upsert({
      taskId: `${prefix}-${i}`,
      url: 'http://127.0.0.1:1/mcp',
      tool: 'reflow_month',
      arguments: {},
      ttlMs: null,
      pollIntervalMs: 100,
      createdAt: now,
      status: 'working',
      updatedAt: now,
    });
    state.mark(`${prefix}-${i}`, 'completed');
  }
} else if (mode === 'rewrite') {
  const ids = state.read().map((t) => t.taskId);
  for (let round = 0; ; round++) {
    for (const id of ids) state.mark(id, round % 2 ? 'working' : 'input_required', `round ${round}`);
    // Tells the test a whole rewrite happened, so its kill lands in the loop, not in start-up.
    if (round === 0) process.stdout.write('rewriting\n');
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
