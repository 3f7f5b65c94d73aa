// The ceiling the store is measured against: node-postgres alone (no drizzle, no HTTP, no store) on
// the same PostgreSQL server and the same cores, `clients` connections each running one statement
// shape back to back: one INSERT; the create-like transaction (BEGIN, two INSERTs, pg_notify,
// COMMIT); one SELECT by key. Each on a fresh database with two tables shaped like tasks and
// task_events.
import pg from 'pg';
import { machineCpu } from './machine-cpu.ts';
import type { LoadFigures } from './load.ts';
import { percentile } from './percentile.ts';

export type AloneShape = 'insert' | 'create-like' | 'select';

const SCHEMA = `
  create table t (id text primary key, owner text not null, input json not null, status text not null,
                  created_at bigint not null, expires_at bigint not null);
  create table e (id bigserial primary key, task_id text not null, at bigint not null, kind text not null);`;

export async function measurePostgresAlone(
  databaseUrl: string,
  shape: AloneShape,
  options: { clients: number; seconds: number },
): Promise<LoadFigures> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: options.clients });
  try {
    await pool.query(SCHEMA);
    const keys: string[] = [];
    if (shape === 'select') {
      // As many rows as the tasks/get phase polls, read in turn.
      await pool.query(
        `insert into t select 'k' || i, 'o', '{}', 'working', 0, 9e15 from generate_series(1, 50) as s(i)`,
      );
      for (let i = 1; i <= 50; i++) keys.push(`k${i}`);
    }
    let next = 0;
    const input = JSON.stringify({ month: '2026-03', offline_rooms: ['r1'] });
    const one = async (client: pg.PoolClient) => {
      const id = `${process.pid}-${++next}`;
      if (shape === 'insert')
        await client.query({
          name: 'insert',
          text: 'insert into t values ($1, $2, $3, $4, 1, 2)',
          values: [id, 'o', input, 'working'],
        });
      else if (shape === 'select')
        await client.query({
          name: 'select',
          text: 'select * from t where id = $1',
          values: [keys[next % keys.length]],
        });
      else {
        await client.query('begin');
        await client.query({
          name: 'insert',
          text: 'insert into t values ($1, $2, $3, $4, 1, 2)',
          values: [id, 'o', input, 'working'],
        });
        await client.query({
          name: 'event',
          text: "insert into e (task_id, at, kind) values ($1, 1, 'created')",
          values: [id],
        });
        await client.query({ name: 'notify', text: "select pg_notify('bench', $1)", values: [id] });
        await client.query('commit');
      }
    };
    const latencies: number[] = [];
    let failed = 0;
    const cpuBusy = machineCpu();
    const started = performance.now();
    const deadline = started + options.seconds * 1000;
    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        const client = await pool.connect();
        try {
          while (performance.now() < deadline) {
            const t0 = performance.now();
            try {
              await one(client);
              latencies.push(performance.now() - t0);
            } catch {
              failed++;
            }
          }
        } finally {
          client.release();
        }
      }),
    );
    const elapsed = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    return {
      requests: latencies.length,
      perSecond: latencies.length / elapsed,
      p50Ms: percentile(latencies, 50),
      p99Ms: percentile(latencies, 99),
      failed,
      cpuBusy: cpuBusy(),
    };
  } finally {
    await pool.end();
  }
}
