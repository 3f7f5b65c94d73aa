#!/usr/bin/env node
// `npm test`: the same test files twice, once per store (REFLOW_TEST_STORE=sqlite, then postgres),
// through the same `tsx --test` command; then both runs' summaries and one combined line.
// Extra arguments replace the file list (e.g. `npm test -- apps/server/test/auth.test.ts`);
// REFLOW_TEST_STORES=postgres (or sqlite) runs one store only.
// Suites that choose their stores themselves run in one pass only: the store contract suites
// (packages/db/test/store-*.test.ts, both stores in one run) in the SQLite pass, the cluster tests
// (apps/server/test/cluster-*.test.ts, always PostgreSQL) in the PostgreSQL pass.
// Exit status: non-zero when either run failed, cancelled a test or passed none.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_STORES } from './test-store.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const ALL_FILES = ['packages/*/test/*.test.ts', 'apps/*/test/*.test.ts', 'seed/test/*.test.ts'];
/** Suites that choose their stores themselves, and the one pass they run in. */
const ONE_PASS_ONLY = [
  { files: /^packages\/db\/test\/store-.*\.test\.ts$/, pass: 'sqlite' },
  { files: /^apps\/server\/test\/cluster-.*\.test\.ts$/, pass: 'postgres' },
];

const stores = (process.env.REFLOW_TEST_STORES || TEST_STORES.join(',')).split(',').filter(Boolean);
for (const s of stores) if (!TEST_STORES.includes(s)) throw new Error(`REFLOW_TEST_STORES: unknown store ${s}`);
const chosen = process.argv.slice(2);

/** The globs expanded the way the shell expands them in the command line. */
function expand(patterns) {
  const listed = spawnSync('bash', ['-c', `printf '%s\\n' ${patterns.join(' ')}`], { cwd: root, encoding: 'utf8' });
  return listed.stdout.split('\n').filter(Boolean);
}

/** The reporter's closing list of failed tests with their errors, cut to a readable length. */
function failureList(output) {
  const at = output.lastIndexOf('✖ failing tests:');
  if (at < 0) return '';
  const list = output.slice(at).trimEnd();
  return list.length > 12_000 ? `${list.slice(0, 12_000)}\n… (cut; the whole list is above)` : list;
}

/** Runs one pass; resolves with its counts (from the reporter's summary) and wall time. */
function runPass(store) {
  const files = expand(chosen.length ? chosen : ALL_FILES).filter((file) =>
    ONE_PASS_ONLY.every(({ files, pass }) => pass === store || !files.test(file)),
  );
  const args = ['--test', '--test-reporter=spec', '--test-concurrency=1', '--test-timeout=600000', ...files];
  const started = Date.now();
  console.log(`\n=== tests on ${store} (REFLOW_TEST_STORE=${store}) ===\n`);
  const child = spawn(join(root, 'node_modules/.bin/tsx'), args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, REFLOW_TEST_STORE: store },
  });
  let tail = '';
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    tail = (tail + chunk.toString()).slice(-200_000); // the summary precedes a failure list that can be long
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      const count = (name) => Number(new RegExp(`^ℹ ${name} (\\d+)`, 'm').exec(tail)?.[1] ?? NaN);
      resolve({
        store,
        code,
        seconds: Math.round((Date.now() - started) / 1000),
        tests: count('tests'),
        pass: count('pass'),
        fail: count('fail'),
        skipped: count('skipped'),
        cancelled: count('cancelled'),
        failures: failureList(tail),
      });
    }),
  );
}

const results = [];
for (const store of stores) results.push(await runPass(store));

console.log('\n=== summary ===');
for (const r of results)
  console.log(
    `store ${r.store}: ${r.tests} tests, ${r.pass} passed, ${r.fail} failed, ${r.skipped} skipped, ${r.cancelled} cancelled, ${r.seconds} s (exit ${r.code})`,
  );
const sum = (key) => results.reduce((n, r) => n + (Number.isNaN(r[key]) ? 0 : r[key]), 0);
const bad = results.filter((r) => r.code !== 0 || !(r.pass > 0) || r.fail !== 0 || r.cancelled > 0);
console.log(
  `all stores: ${sum('pass')} passed, ${sum('fail')} failed, ${sum('skipped')} skipped, ${sum('cancelled')} cancelled in ${results.length} runs`,
);
// Again after the summary, so the last lines of a CI log say what failed and why.
for (const r of results.filter((r) => r.failures)) console.log(`\n=== failures on ${r.store} ===\n${r.failures}`);
process.exit(bad.length ? 1 : 0);
