// One load run with wrk (Debian's `wrk`, written in C), reduced to the same figures as load.ts.
// Used where the load tool's own CPU would decide the figure: the bench, every node and PostgreSQL
// share this machine's two cores, and autocannon (JavaScript) took about a third of a core to load
// one node, which left two nodes no core to grow into. wrk loads it for about a quarter of a core.
// Non-2xx answers, socket errors and bodies without `accept` count as failures, not speed.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadFigures } from './load.ts';
import { machineCpu } from './machine-cpu.ts';
import { ensureDebianPackage } from '../../../scripts/debian-packages.mjs';

export interface WrkOptions {
  /** One URL per node, all with the same path: wrk thread i sends to the i-th node in turn. */
  urls: string[];
  connections: number;
  durationSeconds: number;
  /** POST requests built once, which every connection sends in turn. */
  cycle: { body: string; headers: Record<string, string> }[];
  /** Text every answer's body must contain; one without it counts as failed. */
  accept: string;
}

/** Two threads, whatever the number of nodes, so one node and two are loaded by the same tool. */
const THREADS = 2;

/** A Lua long string: no escaping to get wrong, whatever the text holds. */
function luaString(text: string): string {
  let level = '';
  while (text.includes(`]${level}]`)) level += '=';
  return `[${level}[${text}]${level}]`;
}

function luaScript(options: WrkOptions): string {
  const nodes = options.urls.map((u) => new URL(u));
  const requests = options.cycle.map(
    ({ body, headers }) =>
      `{ body = ${luaString(body)}, headers = { ${Object.entries(headers)
        .map(([k, v]) => `[ ${luaString(k)} ] = ${luaString(v)}`)
        .join(', ')} } }`,
  );
  return `
local nodes = { ${nodes.map((u) => `{ host = ${luaString(u.hostname)}, port = ${luaString(u.port)} }`).join(', ')} }
local path = ${luaString(nodes[0].pathname)}
local requests = { ${requests.join(',\n')} }
local threads = {}
local started = 0

-- Runs in the main state, once per thread: thread i sends to node i (modulo the nodes).
function setup(thread)
  local node = nodes[(started % #nodes) + 1]
  started = started + 1
  thread.addr = wrk.lookup(node.host, node.port)[1]
  thread:set("hostHeader", node.host .. ":" .. node.port)
  thread:set("offset", started)
  table.insert(threads, thread)
end

-- Each thread formats its requests once, with its node's Host header.
function init(args)
  formatted = {}
  for i, r in ipairs(requests) do
    r.headers["Host"] = hostHeader
    formatted[i] = wrk.format("POST", path, r.headers, r.body)
  end
  next_request = offset
  rejected = 0
end

function request()
  next_request = next_request + 1
  return formatted[(next_request % #formatted) + 1]
end

-- A non-2xx answer is counted by wrk itself (summary.errors.status): only a 2xx body is judged here.
function response(status, headers, body)
  if status < 300 and not string.find(body, ${luaString(options.accept)}, 1, true) then rejected = rejected + 1 end
end

function done(summary, latency, requests)
  local r = 0
  for _, thread in ipairs(threads) do r = r + thread:get("rejected") end
  local e = summary.errors
  io.write(string.format(
    "\\nWRK_FIGURES {\\"requests\\":%d,\\"durationUs\\":%d,\\"errors\\":%d,\\"rejected\\":%d,\\"p50Us\\":%d,\\"p99Us\\":%d}\\n",
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout, r,
    latency:percentile(50), latency:percentile(99)))
end
`;
}

export async function runWrk(options: WrkOptions): Promise<LoadFigures> {
  ensureDebianPackage('wrk', 'the bench loads nodes with wrk', 'wrk');
  const dir = mkdtempSync(join(tmpdir(), 'reflow-wrk-'));
  try {
    const script = join(dir, 'requests.lua');
    writeFileSync(script, luaScript(options));
    const cpuBusy = machineCpu();
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn('wrk', [
        `-t${THREADS}`,
        `-c${Math.max(THREADS, options.connections)}`,
        `-d${options.durationSeconds}s`,
        '--timeout',
        '10s',
        '-s',
        script,
        options.urls[0],
      ]);
      let out = '';
      let err = '';
      // wrk ends on its own after the run; one that has not 30 s later is killed, failing the run
      // (naming itself) instead of hanging the bench.
      let killed = false;
      const limit = setTimeout(
        () => {
          killed = true;
          child.kill('SIGKILL');
        },
        (options.durationSeconds + 30) * 1000,
      );
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.on('error', reject);
      child.on('close', (code, signal) => {
        clearTimeout(limit);
        if (code === 0) resolve(out);
        else if (killed)
          reject(new Error(`wrk killed: still running 30 s after its ${options.durationSeconds} s run: ${err}${out}`));
        else reject(new Error(`wrk exited ${code ?? signal}: ${err}${out}`));
      });
    });
    const busy = cpuBusy();
    const line = /WRK_FIGURES (\{.*\})/.exec(output);
    if (!line) throw new Error(`wrk printed no figures: ${output}`);
    const f = JSON.parse(line[1]) as Record<string, number>;
    return {
      requests: f.requests,
      perSecond: f.requests / (f.durationUs / 1e6),
      p50Ms: f.p50Us / 1000,
      p99Ms: f.p99Us / 1000,
      failed: f.errors + f.rejected,
      cpuBusy: busy,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
