// What the direct-path tests (a poll or a create answered without a per-request MCP server) check
// alike: which path answered, from the server's own request counter, and answers compared with the
// values no two creates share masked.

/** reflow_mcp_requests_total for `method` answered by `path`, as the server's /metrics reports it. */
export async function requestsCounted(
  baseUrl: string,
  method: string,
  path: 'direct' | 'sdk' | 'session',
): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`reflow_mcp_requests_total{method="${method}",path="${path}"} `));
  return line ? Number(line.split(' ').pop()) : 0;
}

/** An answer's text with its task ids and instants masked. */
export function maskedAnswer(text: string): string {
  return text
    .replace(/tsk_[0-9a-f]{40}/g, '<task>')
    .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g, '<instant>');
}
