// A separate process that adds `count` tasks to a state file one by one, for the concurrency test.
import { StateFile } from '../src/client/state-file.ts';

const [path, prefix, count] = process.argv.slice(2);
const state = new StateFile(path);
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
