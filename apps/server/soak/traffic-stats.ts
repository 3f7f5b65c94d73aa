// Everything the traffic saw, as the clients saw it: HTTP statuses, JSON-RPC errors, request
// counts per kind and client-measured latencies.

export interface ErrorSample {
  what: string;
  detail: string;
}

export class TrafficStats {
  readonly statuses = new Map<string, number>();
  readonly counts = new Map<string, number>();
  /** JSON-RPC / tool errors by `code message`, split into the ones a soak expects and the rest. */
  readonly expectedErrors = new Map<string, number>();
  readonly unexpectedErrors = new Map<string, number>();
  readonly samples: ErrorSample[] = [];
  readonly #latencies = new Map<string, number[]>();

  status(status: number | 'network error'): void {
    bump(this.statuses, String(status));
  }

  count(kind: string, by = 1): void {
    bump(this.counts, kind, by);
  }

  latency(kind: string, ms: number): void {
    const list = this.#latencies.get(kind) ?? [];
    list.push(ms);
    this.#latencies.set(kind, list);
  }

  error(what: string, key: string, expected: boolean, detail = key): void {
    bump(expected ? this.expectedErrors : this.unexpectedErrors, key);
    if (!expected && this.samples.length < 10) this.samples.push({ what, detail: detail.slice(0, 300) });
  }

  /** p-th percentile (0–100) of a kind's latencies, ms; undefined when none were measured. */
  percentile(kind: string, p: number): number | undefined {
    const list = this.#latencies.get(kind);
    if (!list?.length) return undefined;
    const sorted = [...list].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
  }

  serverErrors(): number {
    let n = 0;
    for (const [status, count] of this.statuses) if (status.startsWith('5') || status === 'network error') n += count;
    return n;
  }
}

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}
