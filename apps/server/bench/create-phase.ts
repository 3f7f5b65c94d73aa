// CreateTaskResult latency for reflow_month while both workers are busy: every request a new
// task (distinct arguments), committed before the answer leaves. Run once per storage set-up.
import type { Scenario } from '@reflow/seed';
import { startBenchServer, type BenchDatabase } from './bench-server.ts';
import { runLoad, type LoadFigures } from './load.ts';
import { mcpBody, mcpHeaders } from '../harness/mcp-wire.ts';
import { reflowStream } from './reflow-requests.ts';
import { createReflowTask } from './task-waits.ts';

export interface StorageSetup {
  label: string;
  database: BenchDatabase;
  /** SQLite's; a PostgreSQL commit is synchronous_commit=on whatever this says. */
  synchronous: 'FULL' | 'NORMAL';
  /** WORKERS=0: an accept-only node, so no solver shares the cores with the create measured. */
  acceptOnly?: boolean;
}

export const STORAGE_SETUPS: StorageSetup[] = [
  { label: 'file, synchronous=FULL (default)', database: 'file', synchronous: 'FULL' },
  { label: 'file, synchronous=NORMAL', database: 'file', synchronous: 'NORMAL' },
  { label: ':memory:', database: ':memory:', synchronous: 'FULL' },
];

export async function measureCreate(
  scenario: Scenario,
  setup: StorageSetup,
  options: { connections: number; seconds: number },
): Promise<LoadFigures> {
  const server = await startBenchServer(scenario.site, {
    database: setup.database,
    env: { SQLITE_SYNCHRONOUS: setup.synchronous, ...(setup.acceptOnly ? { WORKERS: '0' } : {}) },
  });
  try {
    const next = reflowStream(scenario);
    // Saturate the pool first (when it has workers): the measured creates queue behind work already running.
    for (let i = 0; i < 20; i++) await createReflowTask(server.mcpUrl, next());
    return await runLoad({
      url: server.mcpUrl,
      connections: options.connections,
      durationSeconds: options.seconds,
      method: 'POST',
      build: () => ({
        headers: mcpHeaders('tools/call', 'reflow_month'),
        body: mcpBody('tools/call', { name: 'reflow_month', arguments: next() }),
      }),
      accept: (b) => b.includes('"resultType":"task"'),
    });
  } finally {
    await server.stop();
  }
}
