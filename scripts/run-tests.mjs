#!/usr/bin/env node
// `npm test`: every test file in its own node process (node:test), several files at once.
// - A file whose code (its own relative imports, followed through the helpers) reaches
//   scripts/test-store.mjs runs once per store (REFLOW_TEST_STORE=sqlite, then postgres); every
//   other file does not depend on the store (solver, seed, CLI parsing, and the suites that open
//   their stores themselves: store contract, cluster) and runs once, as do the files of the
//   protocol and CLI surface (SURFACE below), on SQLite.
// - REFLOW_TEST_CONCURRENCY files run at once (default: twice the CPUs, at least 2); the files
//   that ran longest last time start first (times kept in node_modules/.cache). The files in ALONE
//   (they measure growth and waits) run last, one at a time, with nothing beside them. A file's output is
//   printed whole when it ends, so files never interleave.
// - At the end: one line per store and one for the store-independent files
//   (`store sqlite: N tests, P passed, F failed, S skipped, C cancelled, T s`), a combined
//   `all stores: …` line, the CPU the files used, the ten slowest files (wall and CPU seconds),
//   then every failure again with its error. Every file's figures go to
//   node_modules/.cache/reflow-test-last-run.json.
// - Child servers and `reflow` processes run from a bundle built once at the start (see
//   scripts/test-build.mjs), and each test file from a bundle of its own, with plain node (see
//   scripts/test-bundle.mjs); REFLOW_TEST_FROM_SOURCES=1 runs all of them through tsx instead.
// Extra arguments replace the file list (`npm test -- apps/server/test/hostile/auth.test.ts`);
// REFLOW_TEST_STORES=postgres (or sqlite) runs the per-store files on one store only.
// Exit status: non-zero when a file failed or cancelled a test, or a group passed none.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildBundle } from './build.mjs';
import { bundleTestFiles } from './test-bundle.mjs';
import { TEST_STORES } from './test-store.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
/** Expanded by bash with globstar: `**` also reaches tests in folders (apps/server/test/wire/…). */
const ALL_FILES = ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'seed/test/**/*.test.ts'];
const STORE_MODULE = join(root, 'scripts/test-store.mjs');
const TIMES = join(root, 'node_modules/.cache/reflow-test-times.json');
/** Every file's wall and CPU seconds and counts from the last run, for finding where the time goes. */
const LAST_RUN = join(root, 'node_modules/.cache/reflow-test-last-run.json');
/** The order of a first run (a fresh clone, CI): the 30 files that took longest in the quiet full run of 6 December. */
const SLOW_FILES = join(root, 'scripts/test-slow-files.json');
/** The store-independent files' line (and pseudo-store, in the job list). */
const ONCE = 'store-independent';
/** The cluster tests run on PostgreSQL only (cluster-nodes on the pass's store, the others on their own database). */
const POSTGRES_ONLY = /^apps\/server\/test\/cluster\/.*\.test\.ts$/;
/**
 * Files whose imports reach test-store.mjs only for helpers they do not use for their store: each
 * names its own database (a SQLite file of its own, or its own PostgreSQL), so both passes ran the same.
 */
const STORE_INDEPENDENT = [
  'apps/cli/test/cli-database-url.test.ts', // PostgreSQL through --database-url, by design
  'apps/cli/test/demo-outlive.test.ts', // `npm run demo -- --outlive`: its own SQLite files
  'apps/cli/test/readme-quick-start.test.ts', // the README's SQLite quick start
  'apps/server/test/durability/database-lost.test.ts', // a PostgreSQL of its own, stopped and started
  'packages/tasks/test/attempt-store-outage.test.ts', // PostgreSQL through a proxy it cuts, whatever the pass
  'apps/server/test/operator/operator-approval-restart.test.ts', // a SQLite file, two server processes
];

/**
 * Files about the protocol and CLI surface: wire shapes, MCP clients of every generation, hostile
 * requests refused before any state, the CLI as a client of the server, the console page. What they check is the same
 * whichever store is under the server, so they run once, on SQLite. Each store's own code is checked
 * on both: packages/db's store contract, the engine and reflow suites, and the durability, cluster,
 * push, operator and security-review files, which run once per store.
 */
const SURFACE = [
  'apps/server/test/wire/*.test.ts',
  'apps/server/test/hostile/abuse-limits.test.ts',
  'apps/server/test/hostile/auth.test.ts',
  'apps/server/test/hostile/hostile-input.test.ts',
  'apps/server/test/hostile/transport-guard.test.ts',
  'apps/cli/test/call-listen.test.ts',
  'apps/cli/test/call-resume.test.ts',
  'apps/cli/test/confirm.test.ts',
  'apps/cli/test/poll-interval.test.ts',
  'apps/cli/test/tasks-approve-command.test.ts',
  'apps/cli/test/tasks-command.test.ts',
  // The console page in a browser: a client of /api, whose every answer the operator API files
  // (operator-approval, operator-revert, operator-tasks-api, …) check on each store.
  'apps/server/test/operator/operator-page.test.ts',
  'apps/server/test/operator/operator-approval-page.test.ts',
  'apps/server/test/operator/operator-revert-approval-page.test.ts',
];

/** A file still running after this long is killed (its tests time out long before: the crash test at 25 min). */
const FILE_TIMEOUT_MS = 30 * 60_000;

/** Files that measure growth and waits: they run alone, after the others, so no neighbour distorts them. */
const ALONE = ['apps/server/test/durability/soak-smoke.test.ts'];

const stores = (process.env.REFLOW_TEST_STORES || TEST_STORES.join(',')).split(',').filter(Boolean);
for (const s of stores) if (!TEST_STORES.includes(s)) throw new Error(`REFLOW_TEST_STORES: unknown store ${s}`);
const concurrency = Number(process.env.REFLOW_TEST_CONCURRENCY) || Math.max(2, availableParallelism() * 2);
const chosen = process.argv.slice(2);

/** The globs expanded the way the shell expands them in the command line. */
function expand(patterns) {
  const listed = spawnSync('bash', ['-O', 'globstar', '-c', `printf '%s\\n' ${patterns.join(' ')}`], {
    cwd: root,
    encoding: 'utf8',
  });
  return listed.stdout.split('\n').filter(Boolean);
}

/** True when `file`, through its relative imports (static or dynamic), reaches scripts/test-store.mjs. */
function readsTheStore(file, seen = new Set()) {
  const path = resolve(root, file);
  if (path === STORE_MODULE) return true;
  if (seen.has(path) || path.includes('/node_modules/')) return false;
  seen.add(path);
  let text;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return false;
  }
  if (text.includes('REFLOW_TEST_STORE')) return true;
  for (const [, spec] of text.matchAll(/(?:\bfrom|\bimport)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = resolve(dirname(path), spec);
    const candidates = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, join(target, 'index.ts')];
    const found = candidates.find((c) => existsSync(c) && !c.endsWith('/'));
    if (found && readsTheStore(found, seen)) return true;
  }
  return false;
}

/** The reporter's closing list of failed tests with their errors, cut to a readable length. */
function failureList(output) {
  const at = output.lastIndexOf('✖ failing tests:');
  if (at < 0) return '';
  const list = output.slice(at + '✖ failing tests:'.length).trim();
  return list.length > 6_000 ? `${list.slice(0, 6_000)}\n… (cut; the whole output is above)` : list;
}

function readTimes(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return {};
  }
}
const lastTimes = () => readTimes(TIMES);

/**
 * CPU seconds of this process's ended children, their own ended children included (Linux's
 * cutime + cstime, in clock ticks of 1/100 s), or undefined without /proc. Read as each file's
 * process ends, the difference is that file's CPU: its test process, its servers, its browser.
 */
function endedChildrenCpu() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return undefined;
  }
}
let cpuSeen = 0;

/** Runs one file on one store (or, for ONCE, as it is); resolves with its counts and wall time. */
function runFile(job) {
  // The file itself, not under `--test`: node:test runs and reports it the same way, without a
  // runner process of its own in between (about 0.16 s of CPU per file). `--test-timeout` applies
  // only under `--test`; FILE_TIMEOUT_MS below stands in for it.
  const args = ['--test-reporter=spec', job.file];
  const started = Date.now();
  const env = { ...process.env };
  if (job.store === ONCE) delete env.REFLOW_TEST_STORE;
  else env.REFLOW_TEST_STORE = job.store;
  // The file's bundle with plain node; without one, tsx as node's loader (what the `tsx` command
  // does, without its extra process in between).
  const bundle = testBundles.get(job.file);
  const loader = bundle ? [] : ['--import', 'tsx'];
  if (bundle) args[args.length - 1] = bundle;
  const child = spawn(process.execPath, [...loader, '--enable-source-maps', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env,
  });
  let output = '';
  const timeout = setTimeout(() => {
    output += `\n✖ ${job.file} still running after ${FILE_TIMEOUT_MS / 60_000} min: killed\n`;
    child.kill('SIGKILL');
  }, FILE_TIMEOUT_MS);
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  let cpu;
  child.on('exit', () => {
    const now = endedChildrenCpu();
    if (now !== undefined) [cpu, cpuSeen] = [now - cpuSeen, now];
  });
  return new Promise((done) =>
    child.on('close', (code, signal) => {
      clearTimeout(timeout);
      const count = (name) => Number(new RegExp(`^ℹ ${name} (\\d+)`, 'm').exec(output)?.[1] ?? NaN);
      done({
        ...job,
        code: code ?? signal,
        output,
        startedAt: started,
        seconds: (Date.now() - started) / 1000,
        cpu,
        tests: count('tests'),
        pass: count('pass'),
        fail: count('fail'),
        skipped: count('skipped') + (count('todo') || 0),
        cancelled: count('cancelled'),
        failures: failureList(output),
      });
    }),
  );
}

// The server and CLI bundled once for this run, for the tests that start them as child processes
// (scripts/test-build.mjs). REFLOW_TEST_FROM_SOURCES=1 runs those children through tsx instead.
if (!process.env.REFLOW_TEST_BUILD && process.env.REFLOW_TEST_FROM_SOURCES !== '1') {
  const dir = join(root, 'node_modules/.cache/reflow-test-build');
  await buildBundle(dir, 'warning');
  process.env.REFLOW_TEST_BUILD = dir;
}

const files = expand(chosen.length ? chosen : ALL_FILES);
const surface = new Set(expand(SURFACE));
const testFilesDir = join(root, 'node_modules/.cache/reflow-test-files');
const testBundles =
  process.env.REFLOW_TEST_FROM_SOURCES === '1' ? new Map() : await bundleTestFiles(files, testFilesDir);
// The tests' own child scripts were bundled there too (scripts/test-build.mjs, childScript).
if (testBundles.size > 0) process.env.REFLOW_TEST_FILES = testFilesDir;
// The run's database templates (scripts/test-store.mjs, builtTestDatabase): built by the first test
// process that needs one, copied by the rest, removed at the end (on PostgreSQL, with its server).
const templates = mkdtempSync(join(tmpdir(), 'reflow-templates-'));
process.on('exit', () => rmSync(templates, { recursive: true, force: true }));
process.env.REFLOW_TEST_TEMPLATES = templates;
process.env.REFLOW_TEST_RUN_ID = randomBytes(4).toString('hex');
const times = { ...readTimes(SLOW_FILES), ...lastTimes() };
const jobs = files
  .flatMap((file) => {
    if (POSTGRES_ONLY.test(file)) return stores.includes('postgres') ? [{ file, store: 'postgres' }] : [];
    if (STORE_INDEPENDENT.includes(file) || surface.has(file) || !readsTheStore(file)) return [{ file, store: ONCE }];
    return stores.map((store) => ({ file, store }));
  })
  // Longest first (by the last run's times), so the long files do not start last.
  .sort((a, b) => (times[`${b.store} ${b.file}`] ?? 60) - (times[`${a.store} ${a.file}`] ?? 60));

const groups = [...stores, ONCE].filter((g) => jobs.some((j) => j.store === g));
console.log(
  `${jobs.length} test file runs, ${concurrency} at once: ` +
    groups.map((g) => `${jobs.filter((j) => j.store === g).length} ${g === ONCE ? ONCE : `on ${g}`}`).join(', '),
);
const started = Date.now();
cpuSeen = endedChildrenCpu() ?? 0;
const results = [];
let next = 0;
const shared = jobs.filter((j) => !ALONE.includes(j.file));
const alone = jobs.filter((j) => ALONE.includes(j.file));
/** Runs `queue`'s jobs in order as workers free up, printing each file's output whole when it ends. */
async function worker(queue) {
  while (next < queue.length) {
    const job = queue[next++];
    const r = await runFile(job);
    results.push(r);
    const label = r.store === ONCE ? '' : ` [${r.store}]`;
    const state = r.code === 0 && !(r.fail > 0) && !(r.cancelled > 0) ? 'ok' : 'FAILED';
    console.log(`\n=== ${r.file}${label}: ${state}, ${r.seconds.toFixed(1)} s (${results.length}/${jobs.length}) ===`);
    process.stdout.write(r.output.endsWith('\n') ? r.output : `${r.output}\n`);
  }
}
await Promise.all(Array.from({ length: Math.min(concurrency, shared.length) }, () => worker(shared)));
next = 0;
await worker(alone);
const wall = Math.round((Date.now() - started) / 1000);

const n = (value) => (Number.isNaN(value) ? 0 : value);
/** A file failed when its process did, or it reported a failed or cancelled test, or no count at all. */
const fileFailed = (r) => r.code !== 0 || n(r.fail) > 0 || n(r.cancelled) > 0 || Number.isNaN(r.tests);
console.log('\n=== summary ===');
const lines = groups.map((g) => {
  const rs = results.filter((r) => r.store === g);
  const sum = (key) => rs.reduce((total, r) => total + n(r[key]), 0);
  const failedFiles = rs.filter((r) => fileFailed(r)).length;
  // A file that failed without a failed test (it did not load, or its process died) counts as one.
  const fail = Math.max(sum('fail'), failedFiles);
  const busy = Math.round(rs.reduce((total, r) => total + r.seconds, 0));
  const name = g === ONCE ? ONCE : `store ${g}`;
  return {
    bad: failedFiles > 0 || !(sum('pass') > 0),
    pass: sum('pass'),
    fail,
    skipped: sum('skipped'),
    cancelled: sum('cancelled'),
    line: `${name}: ${sum('tests')} tests, ${sum('pass')} passed, ${fail} failed, ${sum('skipped')} skipped, ${sum('cancelled')} cancelled, ${busy} s in ${rs.length} files`,
  };
});
for (const l of lines) console.log(l.line);
const total = (key) => lines.reduce((s, l) => s + l[key], 0);
console.log(
  `all stores: ${total('pass')} passed, ${total('fail')} failed, ${total('skipped')} skipped, ${total('cancelled')} cancelled in ${lines.length} runs, ${wall} s wall time (${concurrency} files at once)`,
);

const cpuKnown = results.filter((r) => r.cpu !== undefined);
if (cpuKnown.length) {
  const cpuTotal = cpuKnown.reduce((s, r) => s + r.cpu, 0);
  console.log(
    `CPU: ${Math.round(cpuTotal)} s in the test files' processes and their children (${(cpuTotal / Math.max(1, wall)).toFixed(1)} cores on average)`,
  );
}
const cpuText = (r) => (r.cpu === undefined ? '' : `${r.cpu.toFixed(1).padStart(7)} s CPU`);
console.log('\nslowest files (wall, CPU):');
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 10))
  console.log(
    `${r.seconds.toFixed(1).padStart(7)} s ${cpuText(r)}  ${r.file}${r.store === ONCE ? '' : ` [${r.store}]`}`,
  );
if (cpuKnown.length) {
  console.log('\nbusiest files (CPU, wall):');
  for (const r of [...cpuKnown].sort((a, b) => b.cpu - a.cpu).slice(0, 10))
    console.log(
      `${cpuText(r)} ${r.seconds.toFixed(1).padStart(7)} s  ${r.file}${r.store === ONCE ? '' : ` [${r.store}]`}`,
    );
}

// Kept for the next run's order (longest first); merged, so a run of a few files keeps the others.
try {
  mkdirSync(dirname(TIMES), { recursive: true });
  const kept = { ...lastTimes() };
  for (const r of results) kept[`${r.store} ${r.file}`] = Math.round(r.seconds * 10) / 10;
  writeFileSync(TIMES, `${JSON.stringify(kept, null, 1)}\n`);
  const rows = results.map(({ file, store, startedAt, seconds, cpu, tests, pass, fail, skipped }) => ({
    file,
    store,
    at: Math.round((startedAt - started) / 100) / 10, // seconds after the first file started
    seconds: Math.round(seconds * 10) / 10,
    cpu: cpu === undefined ? null : Math.round(cpu * 10) / 10,
    tests,
    pass,
    fail,
    skipped,
  }));
  writeFileSync(LAST_RUN, `${JSON.stringify({ wall, concurrency, files: rows }, null, 1)}\n`);
} catch {
  // only an ordering hint
}

// Again after the summary, so the last lines of a CI log say what failed and why.
for (const r of results.filter((r) => fileFailed(r))) {
  const label = r.store === ONCE ? '' : ` [${r.store}]`;
  const why = r.failures || `exit ${r.code}, no failing test reported:\n${r.output.slice(-3000)}`;
  console.log(`\n=== failed: ${relative(root, resolve(root, r.file))}${label} ===\n${why}`);
}
process.exit(lines.some((l) => l.bad) ? 1 : 0);
