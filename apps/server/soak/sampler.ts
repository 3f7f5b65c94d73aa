// Every few seconds: the server process's resident memory, the WAL, and the task tables.
import { readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { tableSizes, type TableSizes } from './db-peek.ts';
import { scrapeMetrics } from './server-metrics.ts';
import { walState, type WalState } from './wal-file.ts';

export interface Sample extends TableSizes {
  /** Seconds since the traffic started. */
  t: number;
  rssMb: number;
  wal: WalState;
  /** The database file itself (the audit of moves is kept for good, so it grows with them). */
  dbBytes: number;
  /** The server's event-loop lag since the previous sample (its /metrics), ms. */
  lagMaxMs?: number;
  /** The server main thread's V8 heap in use (MB): flat while RSS grows points at worker threads or native memory. */
  heapMb?: number;
  lagP99Ms?: number;
}

/** VmRSS of a process, in MB (Linux /proc). */
export function rssMb(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for pid ${pid}`);
  return Number(match[1]) / 1024;
}

export class Sampler {
  readonly samples: Sample[] = [];
  readonly errors: string[] = [];
  #stopped = false;
  #loop?: Promise<void>;

  constructor(
    private readonly pid: number,
    private readonly databasePath: string,
    private readonly baseUrl: string,
    private readonly startedAt: number,
  ) {}

  start(everyMs: number): void {
    this.#loop = (async () => {
      while (!this.#stopped) {
        await this.sampleNow();
        await sleep(everyMs);
      }
    })();
  }

  async sampleNow(): Promise<Sample | undefined> {
    try {
      const metrics = await scrapeMetrics(this.baseUrl);
      const sample: Sample = {
        t: (Date.now() - this.startedAt) / 1000,
        rssMb: rssMb(this.pid),
        wal: walState(this.databasePath),
        dbBytes: statSync(this.databasePath).size,
        ...tableSizes(this.databasePath),
        lagMaxMs: metrics.sum('reflow_nodejs_eventloop_lag_max_seconds') * 1000,
        lagP99Ms: metrics.sum('reflow_nodejs_eventloop_lag_p99_seconds') * 1000,
        heapMb: metrics.sum('reflow_nodejs_heap_size_used_bytes') / 1024 / 1024,
      };
      this.samples.push(sample);
      return sample;
    } catch (error) {
      if (this.errors.length < 5) this.errors.push(String(error));
      return undefined;
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    await this.#loop;
    await this.sampleNow();
  }
}
