// One load run with autocannon (the Fastify team's HTTP benchmarking tool), reduced to the
// figures the bench prints. Non-2xx answers and JSON-RPC errors count as failures, not speed.
import autocannon from 'autocannon';
import { machineCpu } from './machine-cpu.ts';

export interface LoadOptions {
  /** Several URLs (nodes of one cluster): connection i sends to the i-th in turn. */
  url: string | string[];
  connections: number;
  durationSeconds: number;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /**
   * Requests built once, which every connection sends in turn: as cheap for the load tool as one
   * fixed request, so the tool takes no more of the machine's two cores than it does for /healthz.
   */
  cycle?: { body: string; headers: Record<string, string> }[];
  /** Builds each request as it is sent instead, when no two may repeat (a new task each time). */
  build?: () => { body: string; headers: Record<string, string> };
  /** Checks one answer's body; a false counts the request as failed. */
  accept?: (body: string) => boolean;
}

export interface LoadFigures {
  requests: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  failed: number;
  /** Creates per group commit over the run, where the server's /metrics was read (creates only). */
  meanBatch?: number;
  /** The share of the machine's cores busy over the run (every process), 0–1. */
  cpuBusy?: number;
  /** Polls per statement of the nodes' batched reads over the run, where their /metrics has them (PostgreSQL). */
  pollsPerStatement?: number;
}

export async function runLoad(options: LoadOptions): Promise<LoadFigures> {
  let rejected = 0;
  const build = options.build;
  let instance: autocannon.Instance | undefined;
  const cpuBusy = machineCpu();
  const run = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        // autocannon takes an array of URLs too; its types only know the single one.
        url: options.url as string,
        connections: options.connections,
        duration: options.durationSeconds,
        requests: (options.cycle ?? [{ headers: options.headers, body: options.body }]).map((fixed) => ({
          method: options.method ?? 'GET',
          ...fixed,
          ...(build ? { setupRequest: (request: any) => ({ ...request, ...build() }) } : {}),
          ...(options.accept
            ? {
                onResponse: (_status: number, responseBody: string) => {
                  if (!options.accept!(responseBody)) rejected++;
                },
              }
            : {}),
        })),
      },
      (error: unknown, result: autocannon.Result) =>
        error ? reject(error instanceof Error ? error : new Error(JSON.stringify(error))) : resolve(result),
    );
  });
  // One run of this bench never finished (its connections closed, the server idle): the run then
  // fails, naming itself, instead of hanging the bench.
  const limitMs = (options.durationSeconds + 30) * 1000;
  let timer: NodeJS.Timeout | undefined;
  const result = await Promise.race([
    run,
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        instance?.stop();
        reject(new Error(`the load run (${options.durationSeconds} s) did not finish within ${limitMs / 1000} s`));
      }, limitMs);
    }),
  ]).finally(() => clearTimeout(timer));
  return {
    requests: result.requests.total,
    perSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    failed: result.non2xx + result.errors + result.timeouts + rejected,
    cpuBusy: cpuBusy(),
  };
}
