import { describeDatabaseUrl } from '@reflow/db';
import { DEFAULT_HELD_PER_PRINCIPAL } from '@reflow/mcp-tasks';
import { z } from 'zod';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
/** An empty variable counts as unset (compose cannot unset a variable an image sets). */
const unsetWhenEmpty = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === '' ? undefined : v), schema);

/** Configuration, read once from the environment and validated; a bad value stops the start with its name. */
export const configSchema = z
  .object({
    PORT: int(3000, 0),
    HOST: z.string().min(1).default('127.0.0.1'),
    /**
     * postgres://user:password@host:port/database: run on PostgreSQL, the shared store of a cluster of
     * nodes. Unset: SQLite at DATABASE_PATH. Setting both is refused. Empty counts as unset.
     */
    DATABASE_URL: unsetWhenEmpty(
      z
        .string()
        .optional()
        .superRefine((url, ctx) => {
          if (url === undefined) return;
          try {
            describeDatabaseUrl(url);
          } catch (error) {
            // The message never repeats the URL: it may hold a password.
            ctx.addIssue({ code: 'custom', message: (error as Error).message.replace(/^DATABASE_URL /, '') });
          }
        }),
    ),
    /** The SQLite file when DATABASE_URL is unset (./data/reflow.db by default). Empty counts as unset. */
    DATABASE_PATH: unsetWhenEmpty(z.string().optional()),
    /**
     * FULL (default) syncs the WAL on every commit: an accepted task survives a power cut. NORMAL
     * survives a crash of this process but may lose the last commits to a power cut (bench:tasks prices it).
     */
    SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),
    /** Worker threads solving tasks; 0 makes an accept-only process that queues tasks for another to run. */
    WORKERS: int(2, 0),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** The poll interval handed to clients when the queue is empty; it grows with the queue. */
    POLL_INTERVAL_MS: int(1000, 50),
    TASK_TTL_MS: int(86_400_000, 1000),
    MAX_ATTEMPTS: int(3, 1),
    LEASE_MS: int(30_000, 300),
    /**
     * How long a running attempt waits for a database that is away (unreachable, pool exhausted, a
     * lock wait timed out) before it gives up as a crash would. Meanwhile it spends no attempt.
     */
    OUTAGE_WAIT_MS: int(120_000, 0),
    /**
     * PostgreSQL: connections in this node's pool. Default: three per worker (its heartbeat, progress
     * and apply) plus 10 for requests, heartbeats and sweeps.
     */
    PG_POOL_SIZE: z.coerce.number().int().min(2).optional(),
    /** PostgreSQL: per-connection `statement_timeout`, `lock_timeout`, `idle_in_transaction_session_timeout` (ms; 0 = off). */
    PG_STATEMENT_TIMEOUT_MS: int(30_000, 0),
    PG_LOCK_TIMEOUT_MS: int(10_000, 0),
    PG_IDLE_IN_TRANSACTION_TIMEOUT_MS: int(60_000, 0),
    BODY_LIMIT_BYTES: int(1_048_576, 1024),
    /** Bearer tokens, `principal:role:token` comma-separated (role: client | operator). */
    AUTH_TOKENS: z.string().optional(),
    /** A JSON file of `[{"principal","role","sha256"}]`: tokens stored as SHA-256 hex. */
    AUTH_TOKENS_FILE: z.string().min(1).optional(),
    /**
     * Accept a non-loopback bind without tokens. Only for a container whose port is published on the
     * host's loopback alone (docker-compose.yml); Host is then still held to loopback names.
     */
    UNAUTHENTICATED_BIND: z.stringbool().default(false),
    /** Host header names accepted (comma-separated, no port); default: loopback names when bound to loopback or without tokens. */
    ALLOWED_HOSTS: z.string().optional(),
    /** Origin hostnames accepted; default: the allowed hosts and the CORS origins. */
    ALLOWED_ORIGINS: z.string().optional(),
    /** Origins (`https://console.example.com`) allowed cross-origin; CORS is off when empty. */
    CORS_ORIGINS: z
      .string()
      .optional()
      .refine(
        (v) => !v || v.split(',').every((o) => !o.trim() || URL.canParse(o.trim())),
        'each origin must be a URL such as https://console.example.com',
      ),
    /** Task creation per principal: a bucket of this many, refilled at TASK_RATE_PER_MINUTE. */
    TASK_RATE_BURST: int(10, 1),
    TASK_RATE_PER_MINUTE: int(30, 1),
    /** Tasks a principal may have working at once (counted in the database). */
    MAX_ACTIVE_TASKS_PER_PRINCIPAL: int(5, 1),
    /**
     * Requests to /mcp and /api per minute, per principal (per IP without a valid token), on each
     * node; only when tokens are configured (a server without is loopback only). 0 turns it off.
     */
    HTTP_RATE_LIMIT_PER_MINUTE: int(1200, 0),
    /**
     * Requests a client principal may hold open at once on each node: waits (a synchronous
     * reflow_month, a 2025-11-25 tasks/result), subscriptions/listen streams, 2025-11-25 sessions.
     * Over it a wait or a listen is refused and a session is not opened (served statelessly).
     */
    MAX_HELD_REQUESTS_PER_PRINCIPAL: int(DEFAULT_HELD_PER_PRINCIPAL, 1),
    /** How long a client may take to send a whole request (headers and body); 0 waits forever. */
    REQUEST_TIMEOUT_MS: int(30_000, 0),
    /** When set, GET /metrics needs `Authorization: Bearer <METRICS_TOKEN>` (at least 16 characters). */
    METRICS_TOKEN: unsetWhenEmpty(z.string().min(16).optional()),
    /**
     * `operator`: a reflow a client (an agent) asks to apply solves, then waits for an operator to
     * approve or reject it in the console, the API or the CLI. `none` (default): it applies at once.
     */
    APPROVAL: z.enum(['none', 'operator']).default('none'),
    /** Imported into an empty database on first start; empty string disables. */
    SEED_FILE: z.string().optional(),
    SHUTDOWN_GRACE_MS: int(10_000, 0),
    /** Answers plain tasks/get polls without building a per-request MCP server; false only to compare (bench:tasks). */
    MCP_FAST_TASKS_GET: z.stringbool().default(true),
    /** Answers plain creates (a task tool's tools/call) without building a per-request MCP server; false only to compare (bench:tasks). */
    MCP_FAST_TASK_CALLS: z.stringbool().default(true),
    /** Registers the official MCP conformance suite's fixture tools (greet, slow_compute, …) too. Test use only. */
    MCP_CONFORMANCE_FIXTURES: z
      .enum(['0', '1', 'false', 'true'])
      .default('0')
      .transform((v) => v === '1' || v === 'true'),
    /** Heap limit of each worker thread (MB); one that runs out fails or retries its task and is replaced. */
    WORKER_MAX_MEMORY_MB: int(1024, 16),
    /**
     * TEST-ONLY fault injection, off by default: the process SIGKILLs itself inside the apply
     * transaction after writing this many moves. The crash test uses it to hit the apply window.
     */
    FAULT_KILL_IN_APPLY_AFTER_MOVES: z.coerce.number().int().min(1).optional(),
  })
  .superRefine((c, ctx) => {
    if (c.DATABASE_URL !== undefined && c.DATABASE_PATH !== undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['DATABASE_URL'],
        message:
          'both DATABASE_URL (PostgreSQL) and DATABASE_PATH (SQLite) are set; set one: DATABASE_URL for a cluster on PostgreSQL, DATABASE_PATH for one host on SQLite',
      });
  })
  .transform((c) => ({
    ...c,
    DATABASE_PATH: c.DATABASE_URL === undefined ? (c.DATABASE_PATH ?? './data/reflow.db') : undefined,
  }));

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}
