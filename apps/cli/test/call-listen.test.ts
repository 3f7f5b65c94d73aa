// `reflow call` waits by listening for the task's status notifications when the server
// acknowledges them, and falls back to polling tasks/get when the stream drops. Seen at the
// server's door: a streaming proxy in front of a real server records every MCP request by its
// Mcp-Method header, and can cut a listen stream after its first task notification.
import assert from 'node:assert/strict';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { reflow, REFLOW_WEEKS, scratch, server } from './cli-helpers.ts';

const CALL = [...REFLOW_WEEKS, '--dry-run'];

async function proxy(upstreamUrl: string, options: { cutListens: boolean }) {
  const upstream = new URL(upstreamUrl);
  const methods: string[] = [];
  const proxyServer = createServer((req, res) => {
    const method = String(req.headers['mcp-method']);
    methods.push(method);
    const forward = request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: upstream.pathname,
        method: req.method,
        headers: { ...req.headers, host: upstream.host },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.on('data', (chunk: Buffer) => {
          // A dropped stream: the connection goes right after the task's first notification is delivered.
          if (options.cutListens && method === 'subscriptions/listen' && chunk.includes('notifications/tasks'))
            res.write(chunk, () => {
              answer.destroy();
              setTimeout(() => res.destroy(), 50);
            });
          else res.write(chunk);
        });
        answer.on('end', () => res.end());
        answer.on('error', () => res.destroy());
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => proxyServer.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxyServer.address() as AddressInfo).port}/mcp`,
    methods,
    close: () => new Promise<void>((resolve) => proxyServer.close(() => resolve())),
  };
}

test('reflow call listens when the server acknowledges: one listen request, no polls', async (t) => {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const upstream = await server(join(dir, 'reflow.db'), { POLL_INTERVAL_MS: '100' });
  t.after(() => upstream.close());
  const door = await proxy(upstream.mcpUrl, { cutListens: false });
  t.after(() => door.close());

  const call = reflow(['call', ...CALL, '--url', door.url, '--state-file', join(dir, 'tasks.json'), '--json']);
  assert.equal(await call.exited, 0, call.stderr());
  assert.equal(JSON.parse(call.stdout().trim()).status, 'completed');
  assert.deepEqual(door.methods, ['tools/call', 'subscriptions/listen'], 'pushed, not polled');
});

test('reflow call falls back to polling tasks/get when the notification stream drops, and still gets the result', async (t) => {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const upstream = await server(join(dir, 'reflow.db'), { POLL_INTERVAL_MS: '100' });
  t.after(() => upstream.close());
  const door = await proxy(upstream.mcpUrl, { cutListens: true });
  t.after(() => door.close());

  const call = reflow(['call', ...CALL, '--url', door.url, '--state-file', join(dir, 'tasks.json'), '--json']);
  assert.equal(await call.exited, 0, call.stderr());
  const out = JSON.parse(call.stdout().trim());
  assert.equal(out.status, 'completed');
  assert.equal(out.result.affected, 142);
  assert.match(call.stderr(), /polling tasks\/get: the notification stream ended/);
  assert.equal(door.methods.slice(0, 2).join(), 'tools/call,subscriptions/listen');
  assert.ok(door.methods.slice(2).length >= 1, 'it polled after the drop');
  assert.ok(
    door.methods.slice(2).every((m) => m === 'tasks/get'),
    JSON.stringify(door.methods),
  );
});

test('reflow call --poll never listens', async (t) => {
  const dir = scratch();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const upstream = await server(join(dir, 'reflow.db'), { POLL_INTERVAL_MS: '100' });
  t.after(() => upstream.close());
  const door = await proxy(upstream.mcpUrl, { cutListens: false });
  t.after(() => door.close());
  const call = reflow(['call', ...CALL, '--poll', '--url', door.url, '--state-file', join(dir, 'tasks.json')]);
  assert.equal(await call.exited, 0, call.stderr());
  assert.ok(!door.methods.includes('subscriptions/listen'));
  assert.ok(door.methods.includes('tasks/get'));
});
