// One way to build the server in tests: a real process-local server on a random loopback port,
// over a fresh database of this run's store (REFLOW_TEST_STORE: a SQLite file, or a fresh
// PostgreSQL database), seeded with the demo month. Close it in t.after.
import { readFileSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openStore, type Store } from '@reflow/db';
import { validateSiteFile } from '@reflow/reflow';
import { DEMO_SITE_PATH } from '@reflow/seed';
import pino from 'pino';
import { builtTestDatabase, databaseEnv, freshTestDatabase } from '../../../../scripts/test-store.mjs';
import { mcpBody, mcpHeaders, parseMcpBody } from '../../harness/mcp-wire.ts';
import { loadConfig, startServer, type RunningServer } from '../../src/index.ts';
import { loadAwareDeadline } from '../../../../scripts/test-wait.mjs';
import { builtFile } from '../../../../scripts/test-build.mjs';

export interface TestServer extends Omit<RunningServer, 'close'> {
  mcpUrl: string;
  /** Where its data lives: the SQLite file, or on PostgreSQL the database's URL. Pass it on to start a second server on the same data. */
  databasePath: string;
  /** Stops the server (once; later calls wait for the first); the database is removed unless kept for a second server. */
  close(options?: { keepDatabase?: boolean }): Promise<void>;
}

/** Starts a server on a fresh database, or on `databasePath` when given (a restart, or a second server on the same data). */
export async function startTestServer(
  env: Record<string, string> = {},
  existingDatabase?: string,
): Promise<TestServer> {
  // A new database holds the demo month already, as the server's own first start would write it
  // (one template per run, copied: migrating and seeding each cost 0.2-0.7 s of CPU), unless the
  // test seeds it another way.
  const fresh =
    existingDatabase !== undefined
      ? undefined
      : 'SEED_FILE' in env
        ? await freshTestDatabase()
        : await builtTestDatabase('demo_month', migrateAndSeedDemo);
  const databasePath = existingDatabase ?? fresh!.location;
  const config = loadConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    ...databaseEnv(databasePath),
    WORKERS: '2',
    LOG_LEVEL: 'silent',
    ...env,
  });
  // Under `npm test`, the solve threads load the run's bundled worker: through tsx, each thread
  // spent about a second of CPU loading the sources.
  const server = await startServer(config, pino({ level: config.LOG_LEVEL }), {
    solveWorkerFile: builtFile('solve-worker.js'),
  });
  // Closing twice is a no-op, so a test can close a server mid-way and still register it in t.after.
  let closed: Promise<void> | undefined;
  return {
    ...server,
    mcpUrl: `${server.url}/mcp`,
    databasePath,
    close: (options) =>
      (closed ??= server.close().then(async () => {
        if (options?.keepDatabase) return;
        if (fresh) await fresh.drop();
        // A restart on a SQLite file removes its directory, as the first server would have. (A
        // PostgreSQL database another server may still use stays until the test server stops.)
        else if (!databaseEnv(databasePath).DATABASE_URL)
          rmSync(dirname(databasePath), { recursive: true, force: true });
      })),
  };
}

/** What a server's first start does on an empty database: the schema, then the demo month. */
async function migrateAndSeedDemo(location: string): Promise<void> {
  const store = await openTestStore(location);
  try {
    await store.migrate({ seed: () => validateSiteFile(JSON.parse(readFileSync(DEMO_SITE_PATH, 'utf8'))) });
  } finally {
    await store.close();
  }
}

/** Another store on a test server's data (`databasePath`: a SQLite file or a PostgreSQL URL), migrated already; close it after. */
export function openTestStore(databasePath: string): Promise<Store> {
  const env = databaseEnv(databasePath);
  return openStore(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : { databasePath: env.DATABASE_PATH });
}

export { PROTOCOL_VERSION, TASKS_EXTENSION as TASKS } from '../../harness/mcp-wire.ts';

/** Tasks the store holds (live ones: every test that counts looks before any TTL passes). */
export async function taskCount(store: Store): Promise<number> {
  return Object.values(await store.taskList.countsByStatus({})).reduce((sum, n) => sum + n, 0);
}

/** Every booking's place, status and version, by id: equal strings mean nothing was written. */
export async function bookingsSnapshot(store: Store): Promise<string> {
  const all = await store.bookings.overlapping({ from: -8.64e15, to: 8.64e15 });
  const rows = all
    .map((b) => ({ id: b.id, roomId: b.roomId, startAt: b.startAt, status: b.status, version: b.version }))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return JSON.stringify(rows);
}

/** Sends one raw JSON-RPC request the way a 2026-07-28 client does; returns status and parsed body. */
export async function rpc(
  url: string,
  method: string,
  params: Record<string, unknown> = {},
  opts: {
    tasks?: boolean;
    capabilities?: Record<string, unknown>;
    id?: number | string;
    headers?: Record<string, string>;
    token?: string;
  } = {},
): Promise<{ status: number; body: any }> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      ...mcpHeaders(method, typeof name === 'string' ? name : undefined),
      ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
      ...opts.headers,
    },
    body: mcpBody(method, params, { id: opts.id ?? 1, tasks: opts.tasks, capabilities: opts.capabilities }),
  });
  const text = await res.text();
  return { status: res.status, body: parseMcpBody(text) ?? JSON.parse(text) };
}

/** Polls tasks/get until the task reaches one of `statuses`, bounded by `timeoutMs`. */
export async function waitForTaskStatus(
  url: string,
  taskId: string,
  statuses: string[],
  timeoutMs = 60_000,
  opts: { token?: string } = {},
): Promise<any> {
  const deadline = loadAwareDeadline(timeoutMs);
  for (;;) {
    const { body } = await rpc(url, 'tasks/get', { taskId }, opts);
    if (body.error) throw new Error(`tasks/get failed: ${JSON.stringify(body.error)}`);
    if (statuses.includes(body.result.status)) return body.result;
    if (deadline.passed()) throw new Error(`task ${taskId} still ${body.result.status} after ${timeoutMs} ms`);
    await sleep(Math.min(body.result.pollIntervalMs ?? 200, 200));
  }
}

/** reflow_month arguments for one offline day of studio-b in September (distinct inputs, so distinct tasks). */
export const reflowOn = (day: number) => ({
  month: '2026-09',
  offline_rooms: ['studio-b'],
  from: `2026-09-${String(day).padStart(2, '0')}`,
  to: `2026-09-${String(day).padStart(2, '0')}`,
  dry_run: true,
});

/** A tool result's text (or, for anything else, the whole body), to match a refusal's code in. */
export const toolText = (body: any): string =>
  body.result?.content?.map((c: { text: string }) => c.text).join(' ') ?? JSON.stringify(body);
