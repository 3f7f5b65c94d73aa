#!/usr/bin/env node
// `npm test`'s pretest: installs what the tests need beyond `npm ci`, when it is missing, so that
// `npm ci && npm test` passes on a fresh machine. Quick and silent when everything is there.
//   - the Node 22 test tools (MCP Inspector CLI, conformance suite) into tools/node22, from the npm registry;
//   - Debian's Chromium for the operator page's browser test, strace for the fsync-before-response
//     test, and Debian's PostgreSQL server binaries for the PostgreSQL store's tests (apt-get when
//     root; otherwise one line naming the command to run, and a non-zero exit).
// Every server the tests need is started by the tests themselves, on free ports (PostgreSQL by
// scripts/postgres-for-tests.mjs, which `npm test`'s posttest stops).
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { executable, installDebian as installDebianPackage, onPath } from './debian-packages.mjs';
import { postgresBinDir } from './postgres-for-tests.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const tools = join(root, 'tools/node22');

/** The same test as scripts/install-node22-tools.sh, plus the two tools the tests call. */
function node22ToolsMissing() {
  const bin = join(tools, 'node_modules/.bin');
  const installed = join(tools, 'node_modules/.package-lock.json');
  if (!['node', 'mcp-inspector', 'conformance'].every((name) => existsSync(join(bin, name)))) return true;
  if (!existsSync(installed)) return true;
  return statSync(join(tools, 'package-lock.json')).mtimeMs > statSync(installed).mtimeMs;
}

/** Where the operator page test looks for the browser: CHROMIUM_PATH, else Debian's /usr/bin/chromium. */
const chromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function run(command, args, env = {}) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (result.status !== 0) {
    console.error(
      `test setup: \`${[command, ...args].join(' ')}\` failed (${result.error?.message ?? `exit ${result.status}`})`,
    );
    process.exit(1);
  }
}

/** installDebian (scripts/debian-packages.mjs), ending the setup with its error. */
function installDebian(pkg, why, present) {
  try {
    installDebianPackage(pkg, why, present);
  } catch (error) {
    console.error(`test setup: ${error.message}`);
    process.exit(1);
  }
}

if (node22ToolsMissing()) {
  console.error('test setup: installing the Node 22 test tools into tools/node22 (scripts/install-node22-tools.sh)');
  run('bash', ['scripts/install-node22-tools.sh']);
}

if (!executable(chromiumPath())) {
  if (process.env.CHROMIUM_PATH) {
    console.error(
      `test setup: CHROMIUM_PATH=${process.env.CHROMIUM_PATH} is not an executable; point it at Chromium or unset it`,
    );
    process.exit(1);
  }
  installDebian('chromium', "the operator page test needs Debian's Chromium at /usr/bin/chromium", () =>
    executable(chromiumPath()),
  );
}

// The test that the WAL's fsync comes before each answer follows the server's system calls.
installDebian('strace', 'the fsync-before-response test needs strace', () => onPath('strace'));

// The PostgreSQL store's tests start a throwaway server from Debian's binaries (unless
// TEST_DATABASE_URL points at a server of your own).
if (!process.env.TEST_DATABASE_URL && !postgresBinDir()) {
  installDebian(
    'postgresql',
    "the PostgreSQL store tests need Debian's PostgreSQL (/usr/lib/postgresql/*/bin; or set TEST_DATABASE_URL)",
    () => postgresBinDir() !== undefined,
  );
}
