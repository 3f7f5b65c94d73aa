// The tasks at the end, held to the ledger: each id any client received is a row or, past its
// TTL, a tombstone; none is left working; a live one still answers tasks/get with its status.
import { rpc } from './mcp-wire.ts';
import { check, type CheckResult } from './check-result.ts';
import { peek } from '../harness/peek.ts';
import type { TaskLedger } from './task-ledger.ts';
import { TrafficStats } from './traffic-stats.ts';

export interface TaskFacts {
  /** Status of every row left in the tasks table (synchronous calls' tasks too), plus the received ids swept to tombstones. */
  byStatus: Map<string, number>;
  checks: CheckResult[];
}

interface Row {
  id: string;
  status: string;
  expires_at: number;
}

export async function checkTasks(databasePath: string, mcpUrl: string, ledger: TaskLedger): Promise<TaskFacts> {
  const ids = [...ledger.entries.keys()];
  const now = Date.now();
  const { rows, tombstones, allStatuses } = peek(databasePath, (db) => {
    const rows = new Map<string, Row>();
    const tombstones = new Set<string>();
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      const marks = chunk.map(() => '?').join(',');
      for (const r of db
        .prepare(`SELECT id, status, expires_at FROM tasks WHERE id IN (${marks})`)
        .all(...chunk) as Row[])
        rows.set(r.id, r);
      for (const id of db
        .prepare(`SELECT id FROM expired_tasks WHERE id IN (${marks})`)
        .pluck()
        .all(...chunk) as string[])
        tombstones.add(id);
    }
    const allStatuses = db.prepare('SELECT status, count(*) AS n FROM tasks GROUP BY status').all() as {
      status: string;
      n: number;
    }[];
    return { rows, tombstones, allStatuses };
  });

  const byStatus = new Map<string, number>(allStatuses.map((s) => [s.status, s.n]));
  byStatus.set('swept past their TTL (tombstones)', tombstones.size);

  const stuck = [...rows.values()].filter((r) => r.status === 'working' || r.status === 'input_required');
  const expiredUnfinished = [...ledger.entries.values()].filter((e) => e.expiredUnfinished).map((e) => e.id);
  const lost = ids.filter((id) => !rows.has(id) && !tombstones.has(id));
  const live = [...rows.values()].filter((r) => r.expires_at > now + 5_000);
  const disagreements = await askEach(mcpUrl, live);

  return {
    byStatus,
    checks: [
      check(
        'every task terminal',
        stuck.length === 0 && expiredUnfinished.length === 0,
        `${ids.length} task ids received; ${stuck.length} still working${sample(stuck.map((r) => r.id))}; ${expiredUnfinished.length} expired before a client saw them end${sample(expiredUnfinished)}`,
      ),
      check(
        'no task lost',
        lost.length === 0 && disagreements.length === 0,
        `${rows.size} rows + ${tombstones.size} tombstones of ${ids.length} ids; ${lost.length} missing${sample(lost)}; tasks/get of ${live.length} live ids: ${disagreements.length} disagree${sample(disagreements)}`,
      ),
    ],
  };
}

/** tasks/get of each live row, a few at a time; the ids whose answer is not the stored status. */
async function askEach(mcpUrl: string, rows: Row[]): Promise<string[]> {
  const stats = new TrafficStats();
  const wrong: string[] = [];
  const queue = [...rows];
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let row = queue.pop(); row; row = queue.pop()) {
        const got = await rpc(mcpUrl, stats, 'tasks/get', { taskId: row.id }, { tasks: true });
        if (got?.result?.status !== row.status)
          wrong.push(`${row.id} (${got?.error?.message ?? got?.result?.status ?? 'no answer'} vs ${row.status})`);
      }
    }),
  );
  return wrong;
}

const sample = (ids: string[]) => (ids.length ? ` (${ids.slice(0, 3).join(', ')}${ids.length > 3 ? ', …' : ''})` : '');
