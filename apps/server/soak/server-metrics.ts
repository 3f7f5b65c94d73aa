// The server's own view, from GET /metrics (Prometheus text): event-loop lag (prom-client resets
// its lag histogram at each scrape, so each sample covers the interval since the last one), solve
// and apply durations, and the responses it counted by status.

export interface MetricsText {
  /** Sum of every series of `name` whose labels include all of `labels`. */
  sum(name: string, labels?: Record<string, string>): number;
}

export async function scrapeMetrics(baseUrl: string): Promise<MetricsText> {
  const res = await fetch(`${baseUrl}/metrics`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
  return {
    sum(name, labels = {}) {
      let total = 0;
      for (const line of lines) {
        const match = /^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
        if (!match || match[1] !== name) continue;
        const tags = match.at(2) ?? '';
        if (Object.entries(labels).every(([k, v]) => tags.includes(`${k}="${v}"`))) total += Number(match[3]);
      }
      return total;
    },
  };
}

/** Responses the server itself counted with a 5xx status. */
export function server5xx(m: MetricsText): number {
  let n = 0;
  for (const status of ['500', '502', '503', '504']) n += m.sum('reflow_http_requests_total', { status });
  return n;
}

/** Mean seconds of a histogram, or undefined when it has no observations. */
export function histogramMean(m: MetricsText, name: string): number | undefined {
  const count = m.sum(`${name}_count`);
  return count ? m.sum(`${name}_sum`) / count : undefined;
}
