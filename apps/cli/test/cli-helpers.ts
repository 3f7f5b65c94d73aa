// Helpers for driving `reflow` as a child process against real in-process servers.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after } from 'node:test';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { loadConfig, startServer, type RunningServer } from '@reflow/server-app';
import { databaseEnv, freshTestDatabase, onPostgres } from '../../../scripts/test-store.mjs';
import { loadAwareDeadline } from '../../../scripts/test-wait.mjs';
import { builtEntry, builtFile } from '../../../scripts/test-build.mjs';

export const root = fileURLToPath(new URL('../../../', import.meta.url));
/** `reflow` as node runs it: under `npm test` the run's bundle (scripts/test-build.mjs), else the checkout's bin. */
const command = builtEntry('cli') ?? [process.execPath, join(root, 'apps/cli/bin/reflow.mjs')];
/** node's arguments that run `reflow` (its flags, then the script): `node ...reflowArgv, ...args`. */
export const reflowArgv = command.slice(1);

/** `reflow call`'s arguments for the tests' usual reflow: studio-b offline for two weeks of the demo month. */
export const REFLOW_WEEKS = [
  '--month',
  '2026-09',
  '--offline',
  'studio-b',
  '--from',
  '2026-09-07',
  '--to',
  '2026-09-20',
];

export const scratch = () => mkdtempSync(join(tmpdir(), 'reflow-cli-client-'));

/** PostgreSQL runs: the database standing for each SQLite path a test names (one per path, made on first use). */
const databases = new Map<string, Promise<{ location: string }>>();

/**
 * A real server on a random loopback port over `databasePath` (created and seeded when new). On a
 * PostgreSQL run (REFLOW_TEST_STORE), a fresh database stands for each path; the same path again
 * is the same database (a second server on it). They go when the test server stops.
 */
export async function server(
  databasePath: string,
  env: Record<string, string> = {},
): Promise<RunningServer & { mcpUrl: string }> {
  let location = databasePath;
  if (onPostgres()) {
    if (!databases.has(databasePath)) databases.set(databasePath, freshTestDatabase());
    location = (await databases.get(databasePath)!).location;
  }
  const config = loadConfig({ PORT: '0', HOST: '127.0.0.1', ...databaseEnv(location), LOG_LEVEL: 'silent', ...env });
  // The run's bundled solve worker, as the server tests' helper does (no thread loads the sources through tsx).
  const running = await startServer(config, pino({ level: 'silent' }), {
    solveWorkerFile: builtFile('solve-worker.js'),
  });
  return { ...running, mcpUrl: `${running.url}/mcp` };
}

export interface Run {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<number | null>;
}

/**
 * Every `reflow` process a test started and that still runs. No fixed time limit ends one (a busy
 * machine can make a call take minutes); the file's last hook kills what is left, so a test that
 * failed or timed out (the runner's per-test timeout) never leaves one behind.
 */
const running = new Set<ChildProcess>();
after(() => {
  for (const child of running) child.kill('SIGKILL');
});
function track(child: ChildProcess): void {
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/** Starts `reflow …` without blocking this process (the servers under test live in it). */
export function reflow(args: string[], env: Record<string, string> = {}): Run {
  const child = spawn(process.execPath, [...reflowArgv, ...args], {
    cwd: root,
    env: { ...process.env, REFLOW_STATE_FILE: '', ...env },
  });
  track(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls `check` until it returns a value, bounded by `timeoutMs`. */
export async function until<T>(what: string, check: () => T | undefined, timeoutMs = 30_000): Promise<T> {
  const deadline = loadAwareDeadline(timeoutMs);
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (deadline.passed()) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/** Runs the CLI to its end without blocking this process's event loop (an in-process server answers from it). */
export async function runReflow(args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  try {
    const run = promisify(execFile)(process.execPath, [...reflowArgv, ...args], {
      cwd: root,
      env: { ...process.env, REFLOW_URL: '', REFLOW_TOKEN: '' },
    });
    track(run.child);
    const { stdout, stderr } = await run;
    return { status: 0, stdout, stderr };
  } catch (error: any) {
    return { status: error.code ?? -1, stdout: error.stdout ?? '', stderr: error.stderr ?? '' };
  }
}
