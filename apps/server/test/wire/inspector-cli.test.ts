// The MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`) against the HTTP server: it lists
// the tools and calls list_rooms. The Inspector needs Node 22, so it lives in tools/node22 with its
// own Node (`bash scripts/install-node22-tools.sh`, which CI runs before `npm test`). A missing
// Inspector fails this test rather than skipping it.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startTestServer } from '../helpers/test-server.ts';

const toolsBin = fileURLToPath(new URL('../../../../tools/node22/node_modules/.bin/', import.meta.url));
const inspector = join(toolsBin, 'mcp-inspector');

/** Runs the Inspector CLI under Node 22 with a scratch HOME (it keeps a catalog there). */
function inspect(args: string[], home: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(inspector, ['--cli', ...args], {
      env: { ...process.env, HOME: home, PATH: `${toolsBin}:${process.env.PATH}` },
      cwd: home,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

test('MCP Inspector CLI lists the tools and calls list_rooms over Streamable HTTP', async (t) => {
  assert.ok(
    existsSync(inspector),
    `MCP Inspector not installed at ${inspector}: run \`bash scripts/install-node22-tools.sh\``,
  );
  const server = await startTestServer();
  t.after(() => server.close());
  const home = mkdtempSync(join(tmpdir(), 'reflow-inspector-'));
  t.after(() => rmSync(home, { recursive: true, force: true }));

  const listed = await inspect([server.mcpUrl, '--transport', 'http', '--method', 'tools/list'], home);
  assert.equal(listed.code, 0, listed.stderr);
  const tools = (JSON.parse(listed.stdout) as { tools: { name: string; outputSchema?: unknown }[] }).tools;
  assert.deepEqual(tools.map((x) => x.name).sort(), [
    'list_bookings',
    'list_rooms',
    'reflow_cancel',
    'reflow_month',
    'reflow_status',
    'revert_reflow',
  ]);
  assert.ok(tools.find((x) => x.name === 'reflow_month')!.outputSchema, 'reflow_month publishes its outputSchema');

  const called = await inspect(
    [server.mcpUrl, '--transport', 'http', '--method', 'tools/call', '--tool-name', 'list_rooms'],
    home,
  );
  assert.equal(called.code, 0, called.stderr);
  const result = JSON.parse(called.stdout) as {
    structuredContent: { site: { name: string }; rooms: { id: string }[] };
  };
  assert.equal(result.structuredContent.site.name, 'Riverside Studios');
  assert.equal(result.structuredContent.rooms.length, 9);
  assert.ok(result.structuredContent.rooms.some((r) => r.id === 'studio-b'));
});
