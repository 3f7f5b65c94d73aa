// The client sleeps at least the server's pollIntervalMs between polls, re-reading it from every
// answer. Counted where it matters, at the server's door: a forwarding proxy in front of a real
// server records every MCP request (its Mcp-Method header and arrival time) and the interval the
// server answered with.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reflow, scratch, server, until } from './cli-helpers.ts';

interface Seen {
  method: string;
  authorization?: string;
  at: number;
  pollIntervalMs?: number;
}

test('reflow call sleeps at least pollIntervalMs between tasks/get polls, sends its bearer token; Ctrl-C stops waiting, not the task', async (t) => {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const upstream = await server(join(dir, 'reflow.db'), { WORKERS: '0', POLL_INTERVAL_MS: '300' });
  t.after(() => upstream.close());

  const seen: Seen[] = [];
  const forward = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry: Seen = {
      method: String(req.headers['mcp-method']),
      authorization: req.headers.authorization,
      at: performance.now(),
    };
    const headers = Object.fromEntries(
      Object.entries(req.headers).filter(([k]) => !['host', 'content-length', 'connection'].includes(k)),
    ) as Record<string, string>;
    const answer = await fetch(upstream.mcpUrl, { method: req.method, headers, body: Buffer.concat(chunks) });
    const text = await answer.text();
    const json = text.startsWith('{')
      ? JSON.parse(text)
      : JSON.parse(
          text
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .pop()!
            .slice(5),
        );
    entry.pollIntervalMs = json.result?.pollIntervalMs;
    seen.push(entry);
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(text);
  };
  // A forward that fails answers 502, so the CLI hears of it instead of waiting on a request left open.
  const proxy = createServer((req, res) => {
    forward(req, res).catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  t.after(() => proxy.close());
  const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}/mcp`;

  const stateFile = join(dir, 'tasks.json');
  const call = reflow(
    ['call', '--month', '2026-09', '--offline', 'studio-b', '--url', url, '--state-file', stateFile, '--poll'],
    { REFLOW_TOKEN: 'token-from-env' },
  );
  const started = performance.now();
  await until(
    'five polls',
    () => (seen.filter((s) => s.method === 'tasks/get').length >= 5 ? true : undefined),
    60_000,
  );
  call.child.kill('SIGINT');
  assert.equal(await call.exited, 6, 'interrupted: the task goes on');
  const elapsed = performance.now() - started;
  assert.match(call.stderr(), /stopped waiting; the task goes on\. Resume with: reflow resume tsk_/);

  assert.equal(seen[0].method, 'tools/call');
  const polls = seen.slice(1);
  assert.ok(
    polls.every((s) => s.method === 'tasks/get'),
    'only tasks/get after the call',
  );
  for (let i = 1; i < seen.length; i++) {
    const asked = seen[i - 1].pollIntervalMs;
    assert.ok(typeof asked === 'number' && asked >= 300, `the server named an interval (${asked})`);
    const gap = seen[i].at - seen[i - 1].at;
    assert.ok(gap >= asked, `poll ${i} came ${gap.toFixed(0)} ms after the previous answer asked for ${asked} ms`);
  }
  const gaps = seen.slice(1).map((s, i) => `${(s.at - seen[i].at).toFixed(0)}/${seen[i].pollIntervalMs}`);
  t.diagnostic(`gap/asked ms between requests: ${gaps.join(', ')}`);
  // And no more polls than the elapsed time allows at the smallest interval asked.
  const smallest = Math.min(...seen.map((s) => s.pollIntervalMs!));
  assert.ok(
    polls.length <= Math.floor(elapsed / smallest) + 1,
    `${polls.length} polls in ${elapsed.toFixed(0)} ms at ≥ ${smallest} ms`,
  );
  assert.ok(
    seen.every((s) => s.authorization === 'Bearer token-from-env'),
    '--token / $REFLOW_TOKEN is sent as a bearer token on every request',
  );
  assert.doesNotMatch(readFileSync(stateFile, 'utf8'), /token-from-env/, 'and never written to the state file');
  const taskId = call.stderr().match(/Task (tsk_[0-9a-f]+)/)![1];
  assert.equal(
    (await upstream.services.engine.get(taskId))!.status,
    'working',
    'interrupting the client left the task alone',
  );
});
