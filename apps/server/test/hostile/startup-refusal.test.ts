// Without tokens the server refuses to listen anywhere but loopback: the real process, spawned as
// `npm start` runs it, exits non-zero and says why before it opens anything.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { builtEntry } from '../../../../scripts/test-build.mjs';

const ROOT = resolve(import.meta.dirname, '../../../..');

/** Runs the server process until it exits, or until its output matches `stopWhen` (then stops it with SIGTERM). */
function runServer(
  env: Record<string, string>,
  timeoutMs = 30_000,
  stopWhen?: RegExp,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; stderr: string; stdout: string }> {
  return new Promise((done, fail) => {
    const [command, ...args] = builtEntry('server') ?? [
      process.execPath,
      '--import',
      'tsx',
      'apps/server/src/server.ts',
    ];
    const child = spawn(command, args, {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', PORT: '0', LOG_LEVEL: 'info', WORKERS: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let stopping = false;
    child.stdout.on('data', (c) => {
      stdout += c;
      // One SIGTERM only: the server takes a second one as "exit now", with code 1.
      if (!stopping && stopWhen?.test(stdout)) {
        stopping = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (c) => (stderr += c));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      fail(new Error(`the server did not exit within ${timeoutMs} ms; stdout: ${stdout}`));
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stderr, stdout });
    });
  });
}

test('a non-loopback bind without tokens refuses to start, says why, and touches no database', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-refuse-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
    const database = join(dir, `${host.replace(/\W/g, '_')}.db`);
    const { code, stderr } = await runServer({ HOST: host, DATABASE_PATH: database });
    assert.equal(code, 1, `HOST=${host}: exit code`);
    assert.match(
      stderr,
      new RegExp(
        `did not start: Refusing to listen on ${host.replace(/\./g, '\\.')} without authentication: no AUTH_TOKENS or AUTH_TOKENS_FILE is configured`,
      ),
    );
    assert.match(stderr, /bind to a loopback address \(HOST=127\.0\.0\.1\)/);
    assert.equal(existsSync(database), false, 'nothing was opened');
  }
});

test('a bad token list also stops the process with a message', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-refuse-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { code, stderr } = await runServer({
    HOST: '127.0.0.1',
    DATABASE_PATH: join(dir, 'r.db'),
    AUTH_TOKENS: 'alice:root:0123456789abcdefgh',
  });
  assert.equal(code, 1);
  assert.match(
    stderr,
    /did not start: Invalid configuration: AUTH_TOKENS entry 1 \(alice\): role must be client or operator/,
  );
});

test('UNAUTHENTICATED_BIND=true (the compose file: a container port published on loopback) starts and warns', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'reflow-refuse-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { code, stdout, stderr } = await runServer(
    { HOST: '0.0.0.0', UNAUTHENTICATED_BIND: 'true', DATABASE_PATH: join(dir, 'r.db'), SEED_FILE: '' },
    30_000,
    /server listening/,
  );
  assert.equal(code, 0, `it started and stopped cleanly (stderr: ${stderr}; stdout: ${stdout.slice(-1500)})`);
  assert.match(stdout, /studio reflow server listening/);
  assert.match(
    stdout,
    /no bearer tokens on a non-loopback bind \(UNAUTHENTICATED_BIND\): only loopback Host names are accepted/,
  );
  assert.match(stdout, /"auth":"none \(loopback only\)"/);
});
