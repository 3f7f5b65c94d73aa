// `npm run test:mutation`: StrykerJS over the engine (stryker.config.mjs), then one line with the
// score: killed (or timed out) mutants of all that compiled and ran. Survivors are listed so each
// can be killed with a test or explained in docs/testing.md.
// `npm run test:mutation -- --mutate 'packages/tasks/src/task-engine.ts#TaskEngine.cancel'` runs
// only those targets (comma-separated; a file and a function's qualified name after `#`, or
// Stryker's own `file:from-to`): to check a kill without the whole run.
// `npm run test:mutation -- --list` prints the line ranges the targets in stryker.config.mjs name
// today (scripts/mutation-ranges.mjs finds them), and runs nothing.
import { parseArgs } from 'node:util';
import { mutateTargets } from '../stryker.config.mjs';
import { EQUIVALENT_REASONS } from './mutation-ignorers.mjs';
import { mutateRanges, resolveMutateArgument } from './mutation-ranges.mjs';

const { values: args } = parseArgs({ options: { mutate: { type: 'string' }, list: { type: 'boolean' } } });

if (args.list) {
  for (const target of mutateTargets) {
    const names = target.functions ?? ['(the whole file)'];
    const ranges = mutateRanges([target]);
    names.forEach((name, i) => console.log(`${ranges[i].padEnd(56)} ${name}`));
  }
  process.exit(0);
}

// The mutated queries are SQLite's (packages/db/src/queries): the tests run on SQLite files, the
// way npm test's first pass does, whatever the caller's environment says.
process.env.REFLOW_TEST_STORE = 'sqlite';
process.env.REFLOW_STORE_KINDS = 'sqlite';

const started = Date.now();
// The outage tests run on PostgreSQL (a SQLite file is never away). Every sandbox uses this
// worktree's test server, started here once: a sandbox of its own would start a server per run
// (and leave it running), slower than the first test's 5 s.
const { startPostgres, stopPostgres } = await import('./postgres-for-tests.mjs');
const ownServer = !process.env.TEST_DATABASE_URL;
if (ownServer) process.env.TEST_DATABASE_URL = await startPostgres();
// Loaded only for a run: --list needs none of it.
const { Stryker } = await import('@stryker-mutator/core');
const chosen = args.mutate?.split(',').map((entry) => resolveMutateArgument(entry));
const results = await new Stryker(chosen ? { mutate: chosen } : {}).runMutationTest().finally(async () => {
  if (ownServer) {
    delete process.env.TEST_DATABASE_URL;
    await stopPostgres();
  }
});
const detected = results.filter((m) => m.status === 'Killed' || m.status === 'Timeout');
// Mutants of patterns shown equivalent are not run (mutation-ignorers.mjs) but count as undetected,
// as they would if they had run and survived.
const equivalent = results.filter((m) => m.status === 'Ignored' && EQUIVALENT_REASONS.includes(m.statusReason));
const undetected = [...results.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage'), ...equivalent];
const total = detected.length + undetected.length;
for (const m of undetected)
  console.log(
    `${m.status === 'Ignored' ? 'equivalent (not run)' : m.status.toLowerCase()}: ${m.fileName.replace(`${process.cwd()}/`, '')}:${m.location.start.line}:${m.location.start.column} ${m.mutatorName} -> ${JSON.stringify(m.replacement)}`,
  );
const score = total === 0 ? 0 : (100 * detected.length) / total;
console.log(`${equivalent.length} mutants of patterns shown equivalent were not run and count as undetected`);
console.log(`mutation run took ${((Date.now() - started) / 60_000).toFixed(1)} min`);
if (score < 85) process.exitCode = 1;
console.log(`mutation score: ${score.toFixed(1)}% (killed ${detected.length} of ${total})`);
