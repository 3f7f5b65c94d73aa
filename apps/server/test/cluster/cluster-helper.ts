// The cluster tests' tools: several real server processes on one throwaway PostgreSQL database,
// each on a port of its own that it keeps across restarts, a read-only look into the database, and
// who ran which attempt (a claim's `data.by` is the node id `inst_<hex>@<host>:<pid>`).
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { openPostgresStore } from '@reflow/db';
import { importSite } from '@reflow/reflow';
import { DEMO_SITE_PATH } from '@reflow/seed';
import { createTestDatabase } from '../../../../scripts/postgres-for-tests.mjs';
export { freePort } from '../../../../scripts/free-port.mjs';
import { startServerProcess, type ServerProcess } from '../../harness/server-process.ts';

export interface ClusterDatabase {
  url: string;
  /** A small pool for the test's own reads (never writes). */
  reader: pg.Pool;
  drop(): Promise<void>;
}

/** A fresh database, migrated and seeded with the demo month (or the site file given), before any node starts. */
export async function seededClusterDatabase(sitePath = DEMO_SITE_PATH): Promise<ClusterDatabase> {
  const database = await createTestDatabase('reflow_cluster');
  const store = await openPostgresStore(database.url);
  try {
    await store.migrate();
    await importSite(JSON.parse(readFileSync(sitePath, 'utf8')), store);
  } finally {
    await store.close();
  }
  const reader = new pg.Pool({ connectionString: database.url, max: 3 });
  reader.on('error', () => {});
  return {
    url: database.url,
    reader,
    async drop() {
      await reader.end().catch(() => {});
      await database.drop();
    },
  };
}

/** Rows of a read-only query, bigint columns as numbers (the schema's times are epoch ms). */
export async function rows<T>(db: ClusterDatabase, text: string, values: unknown[] = []): Promise<T[]> {
  const result = await db.reader.query({ text, values, types: { getTypeParser: numbersForBigints } });
  return result.rows as T[];
}

const numbersForBigints = ((oid: number, format?: string) =>
  oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser;

/** One node of the cluster: its fixed port, and the process running on it now (if any). */
export class ClusterNode {
  process: ServerProcess | undefined;
  /** When each pid this node ran died (the test's clock, the same host as the database's). */
  readonly deaths = new Map<number, number>();

  constructor(
    readonly name: string,
    readonly port: number,
    readonly databaseUrl: string,
    readonly env: Record<string, string>,
  ) {}

  get mcpUrl(): string {
    return `http://127.0.0.1:${this.port}/mcp`;
  }
  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }
  get up(): boolean {
    return this.process !== undefined && !this.process.dead;
  }

  async start(extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
    const started = await startServerProcess(
      '',
      {
        DATABASE_URL: this.databaseUrl,
        // Empty counts as unset: the harness sets a SQLite path, which a PostgreSQL node must not have.
        DATABASE_PATH: '',
        PORT: String(this.port),
        ...this.env,
        ...extraEnv,
      },
      true,
    );
    this.process = started;
    const pid = started.pid;
    void started.exited.then(() => this.deaths.set(pid, Date.now()));
    return started;
  }

  #starting: Promise<ServerProcess> | undefined;

  /** Starts the node unless it is up or already starting; resolves once it listens. */
  ensureStarted(extraEnv: Record<string, string> = {}): Promise<ServerProcess> {
    if (this.up) return Promise.resolve(this.process!);
    this.#starting ??= this.start(extraEnv).finally(() => (this.#starting = undefined));
    return this.#starting;
  }

  async kill(): Promise<void> {
    if (this.process && !this.process.dead) await this.process.kill();
  }
}

/** The pid in a node id `inst_<hex>@<host>:<pid>`. */
export function pidOf(nodeId: string): number {
  const match = /:(\d+)$/.exec(nodeId);
  if (!match) throw new Error(`not a node id: ${nodeId}`);
  return Number(match[1]);
}

export interface TaskEvent {
  id: number;
  task_id: string;
  at: number;
  attempt: number;
  kind: string;
  message: string;
  data: { by?: string } | null;
}

/** Every recorded event, in the order written. */
export function allEvents(db: ClusterDatabase): Promise<TaskEvent[]> {
  return rows<TaskEvent>(db, 'SELECT id, task_id, at, attempt, kind, message, data FROM task_events ORDER BY id');
}

/** Who claimed the task's latest attempt (its node id), once claimed. */
export async function claimOf(
  db: ClusterDatabase,
  taskId: string,
): Promise<{ attempt: number; by: string; at: number } | undefined> {
  const claim = (
    await rows<{ attempt: number; data: { by: string }; at: number }>(
      db,
      `SELECT attempt, data, at FROM task_events WHERE task_id = $1 AND kind = 'claimed' ORDER BY id DESC LIMIT 1`,
      [taskId],
    )
  ).at(0);
  return claim ? { attempt: claim.attempt, by: claim.data.by, at: claim.at } : undefined;
}
