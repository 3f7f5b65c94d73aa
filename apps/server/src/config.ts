import { z } from 'zod';

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);

/** Configuration, read once from the environment and validated; a bad value stops the start with its name. */
export const configSchema = z.object({
  PORT: int(3000, 0),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATABASE_PATH: z.string().min(1).default('./data/reflow.db'),
  /** Worker threads solving tasks; 0 makes an accept-only process that queues tasks for another to run. */
  WORKERS: int(2, 0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The poll interval handed to clients when the queue is empty; it grows with the queue. */
  POLL_INTERVAL_MS: int(1000, 50),
  TASK_TTL_MS: int(86_400_000, 1000),
  MAX_ATTEMPTS: int(3, 1),
  LEASE_MS: int(30_000, 300),
  BODY_LIMIT_BYTES: int(1_048_576, 1024),
  /** Imported into an empty database on first start; empty string disables. */
  SEED_FILE: z.string().optional(),
  SHUTDOWN_GRACE_MS: int(10_000, 0),
  /** Heap limit of each worker thread (MB); one that runs out fails or retries its task and is replaced. */
  WORKER_MAX_MEMORY_MB: int(1024, 16),
  /**
   * TEST-ONLY fault injection, off by default: the process SIGKILLs itself inside the apply
   * transaction after writing this many moves. The crash test uses it to hit the apply window.
   */
  FAULT_KILL_IN_APPLY_AFTER_MOVES: z.coerce.number().int().min(1).optional(),
});

export type Config = z.infer<typeof configSchema>;

export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`Invalid configuration: ${problems}`);
  }
  return parsed.data;
}
