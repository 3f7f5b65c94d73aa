import { hostname } from 'node:os';
import { TASK_STATUSES, type Store } from '@reflow/db';
import type { TaskEngine, WorkerPool } from '@reflow/tasks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Seconds: a reflow solve takes from tens of milliseconds to minutes. */
const DURATION_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

/**
 * The process's metrics in one registry of its own (tests run several servers in one process).
 * Durations are observed as they happen; task counts, queue and pool are read at scrape time.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'reflow_' });
  return {
    registry,
    solveSeconds: new Histogram({
      name: 'reflow_solve_duration_seconds',
      help: 'Time a reflow spent solving in a worker thread, snapshot sent to plan returned',
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    applySeconds: new Histogram({
      name: 'reflow_apply_duration_seconds',
      help: 'Time a reflow spent applying its plan (moves, audit and terminal state in one transaction)',
      buckets: DURATION_BUCKETS,
      registers: [registry],
    }),
    httpRequests: new Counter({
      name: 'reflow_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status code',
      labelNames: ['route', 'method', 'status'] as const,
      registers: [registry],
    }),
    mcpRequests: new Counter({
      name: 'reflow_mcp_requests_total',
      help: 'MCP requests by method and path: "direct" for polls answered without a per-request server, "sdk" for the rest',
      labelNames: ['method', 'path'] as const,
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** Gauges read from the store and the pool when Prometheus scrapes. */
export function watchServices(
  metrics: Metrics,
  services: { store: Store; pool: WorkerPool; engine: TaskEngine },
): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'reflow_tasks',
    help: 'Live tasks (not past their time-to-live) by status',
    labelNames: ['status'] as const,
    registers,
    async collect() {
      const counts = await services.store.taskList.countsByStatus({});
      for (const status of TASK_STATUSES) this.set({ status }, counts[status]);
    },
  });
  new Gauge({
    name: 'reflow_task_queue_depth',
    help: 'Working tasks waiting for a worker (unclaimed)',
    registers,
    async collect() {
      this.set(await services.store.tasks.queueDepth());
    },
  });
  // Counters kept by the store, read at scrape: creates over batches is the mean group-commit size.
  new Counter({
    name: 'reflow_task_create_commits_total',
    help: 'Group commits of task creates by this process: transactions (one fsync or COMMIT each) that held one or more creates',
    registers,
    collect() {
      this.reset();
      this.inc(services.store.groupCommit.batches);
    },
  });
  new Counter({
    name: 'reflow_task_creates_committed_total',
    help: 'Task creates this process committed through group commit (created or found by dedupe; refused ones included)',
    registers,
    collect() {
      this.reset();
      this.inc(services.store.groupCommit.creates);
    },
  });
  if (services.store.poolStats) {
    const pool = () => services.store.poolStats!;
    new Counter({
      name: 'reflow_db_pool_exhausted_total',
      help: 'Waits for a database connection that ended with every connection of this node in use (pool exhausted, not the database away)',
      registers,
      collect() {
        this.reset();
        this.inc(pool().exhausted);
      },
    });
    new Counter({
      name: 'reflow_task_poll_statements_total',
      help: 'Statements the batched task polls of this node sent (PostgreSQL): polls over statements is the mean batch',
      registers,
      collect() {
        this.reset();
        this.inc(services.store.pollBatches?.statements ?? 0);
      },
    });
    new Counter({
      name: 'reflow_task_polls_batched_total',
      help: 'Task polls (tasks/get) of this node answered by batched statements (PostgreSQL)',
      registers,
      collect() {
        this.reset();
        this.inc(services.store.pollBatches?.reads ?? 0);
      },
    });
    new Gauge({
      name: 'reflow_db_pool_connections',
      help: "This node's database connections by state (size: the configured maximum; waiting: requests queued for one)",
      labelNames: ['state'] as const,
      registers,
      collect() {
        const { size, total, idle, waiting } = pool();
        this.set({ state: 'size' }, size);
        this.set({ state: 'open' }, total);
        this.set({ state: 'idle' }, idle);
        this.set({ state: 'waiting' }, waiting);
      },
    });
  }
  new Gauge({
    name: 'reflow_worker_pool_utilisation',
    help: 'Solves in flight over worker threads, 0..1 (1 for an accept-only process with no workers)',
    registers,
    collect() {
      this.set(services.pool.utilisation);
    },
  });
  new Gauge({
    name: 'reflow_worker_pool_size',
    help: 'Worker threads configured',
    registers,
    collect() {
      this.set(services.pool.size);
    },
  });
  // Labelled with the node id, so the scrapes of several nodes on one store are told apart.
  const node = services.engine.instanceId;
  new Gauge({
    name: 'reflow_task_attempts_running',
    help: 'Task attempts this process (node) is running now',
    labelNames: ['node'] as const,
    registers,
    collect() {
      this.set({ node }, services.engine.runningCount);
    },
  });
  new Gauge({
    name: 'reflow_node_info',
    help: 'Always 1: this process as a node of the cluster (its id as /api/nodes lists it, host, pid, worker threads)',
    labelNames: ['node', 'host', 'pid', 'workers'] as const,
    registers,
    collect() {
      this.set({ node, host: hostname(), pid: String(process.pid), workers: String(services.pool.size) }, 1);
    },
  });
}
