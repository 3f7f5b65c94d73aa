// Mutation testing of the task engine and its queries (claim, fence, cancel, park, finish) and of
// the apply, against the test files that cover them. `npm run test:mutation`; see docs/testing.md.
// In a sandbox copy of the packages: tsconfig.mutation.json maps @reflow/* to the copy's own folders
// (through node_modules they would lead back to the originals) for the bundler
// (scripts/mutation-build.mjs).
import { fileURLToPath } from 'node:url';
import { mutateRanges } from './scripts/mutation-ranges.mjs';

/** The test files that cover the mutated code (scripts/mutation-build.mjs bundles them). */
export const testSources = [
  'packages/tasks/test/task-engine.test.ts',
  'packages/tasks/test/input-required.test.ts',
  'packages/tasks/test/expiry-fence.test.ts',
  'packages/tasks/test/create-admit-signals.test.ts',
  'packages/db/test/wal-flush.test.ts',
  'packages/tasks/test/recovery.test.ts',
  'packages/tasks/test/engine-rare-paths.test.ts',
  'packages/tasks/test/lease-lapse.test.ts',
  'packages/reflow/test/apply-chain.test.ts',
  'packages/tasks/test/engine-mutation-kills.test.ts',
  // An attempt meeting its database away or locked (PostgreSQL through a proxy the test cuts: a
  // SQLite file is never away): the outage waits, the resume, the give-up, one renewal at a time.
  'packages/tasks/test/attempt-store-outage.test.ts',
  // What the attempt and the engine log (the operator's view): every line's fields.
  'packages/tasks/test/log-lines.test.ts',
  // The store's own contract, on SQLite (REFLOW_STORE_KINDS): the lifecycle's transitions, claims
  // that take over lapsed leases, resumeLease's scope test, holdScope's fence.
  'packages/db/test/store-lease-and-scope.test.ts',
  'packages/db/test/store-contract.test.ts',
  // The lifecycle's states on real rows (each state's predicate against stateOf), the claim's choice
  // between queued and lapsed by age and id, and the SQLite transaction's edges.
  'packages/db/test/lifecycle-states.test.ts',
];

/** The test files among testSources that use PostgreSQL (the build leaves them the real node-postgres). */
export const postgresTestSources = ['packages/tasks/test/attempt-store-outage.test.ts'];

/**
 * What the guarantees rest on: the create (with its admit, in one transaction), cancel and answer,
 * the claim, the lease and the fence, park, the attempt and its fenced finish, the sweep's give-up,
 * stop, the SQLite store's transaction and writes (with the WAL flush's order), and the apply.
 * Left out: the engine's option defaults, its poll intervals, waitFor and watch (how often and how a
 * reader looks), the queue's depth and order (what polls read), the store's plain pass-through
 * wrappers, and node heartbeats and reaping (start, #beat, #beatOnce, node-queries.ts): the test
 * that covers them (nodes.test.ts) is timed in leases of 300 ms and fails on the loaded machine
 * under the mutation run's instrumentation (docs/testing.md).
 * @type {import('./scripts/mutation-ranges.mjs').MutateTarget[]}
 */
export const mutateTargets = [
  {
    file: 'packages/tasks/src/task-engine.ts',
    functions: [
      'TaskEngine.create',
      'TaskEngine.cancel',
      'TaskEngine.answer',
      'TaskEngine.kick',
      'TaskEngine.#claimWhileRoom',
      'TaskEngine.#launch',
      'TaskEngine.#failUnhandled',
      'TaskEngine.#sweep',
      'TaskEngine.stop',
    ],
  },
  { file: 'packages/tasks/src/attempt-runner.ts' },
  {
    file: 'packages/db/src/queries/task-claim-queries.ts',
    functions: [
      'taskClaimQueries.claimNext',
      'taskClaimQueries.resumeLease',
      'taskClaimQueries.holdScope',
      'taskClaimQueries.renewLease',
      'taskClaimQueries.release',
      'taskClaimQueries.claimants',
      'taskClaimQueries.releaseClaimsOf',
      'taskClaimQueries.listExhausted',
    ],
  },
  { file: 'packages/db/src/queries/task-state-queries.ts' },
  { file: 'packages/db/src/queries/task-transition.ts' },
  { file: 'packages/db/src/lifecycle/task-states.ts' },
  { file: 'packages/db/src/lifecycle/task-transitions.ts' },
  { file: 'packages/db/src/queries/input-queries.ts', functions: ['inputQueries'] },
  // A park's round keys and events and the answers step, which both stores' inputQueries run.
  { file: 'packages/db/src/queries/input-answers.ts' },
  {
    file: 'packages/db/src/sqlite-store.ts',
    functions: [
      'SqliteStore.#exclusive',
      'SqliteStore.#write',
      'SqliteStore.#atNormal',
      'SqliteStore.transaction',
      'SqliteStore.#commitCreates',
      'SqliteStore.#createIn',
      'SqliteStore.#groups.createOrFind',
      'SqliteStore.#groups.tasks.createOrFind',
    ],
  },
  { file: 'packages/reflow/src/apply-plan.ts' },
];

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  packageManager: 'npm',
  // Only what the tests of the engine need is copied into the sandbox.
  ignorePatterns: [
    '/*',
    '!/packages',
    '!/seed',
    '!/migrations',
    '!/package.json',
    '!/tsconfig.json',
    '!/tsconfig.mutation.json',
    '!/stryker.config.mjs',
    '!/scripts',
    '/scripts/*',
    '!/scripts/mutation-build.mjs',
    '!/scripts/mutation-ignorers.mjs',
    '!/scripts/mutation-ranges.mjs',
    // The tests' store helpers (scripts/mutation.mjs pins REFLOW_TEST_STORE=sqlite).
    '!/scripts/test-store.mjs',
    '!/scripts/test-sql.mjs',
    '!/scripts/postgres-for-tests.mjs',
    '!/scripts/free-port.mjs',
    // The outage tests' proxy (packages/tasks/test/attempt-store-outage.test.ts).
    '!/scripts/cuttable-proxy.mjs',
    // The engine tests' load-aware deadlines (packages/tasks/test/engine-helper.ts).
    '!/scripts/test-wait.mjs',
  ],
  // What the guarantees rest on, by file and function (mutateTargets, above): scripts/mutation-ranges.mjs
  // finds each function's lines in the code as it is when the run starts.
  mutate: mutateRanges(mutateTargets, fileURLToPath(new URL('.', import.meta.url))),
  // Each test file is bundled once with the mutated sources (scripts/mutation-build.mjs): a mutant's
  // test process then runs plain JS, without tsx loading and transforming the package graph.
  buildCommand: 'node scripts/mutation-build.mjs',
  testRunner: 'tap',
  tap: {
    // Bundles of testSources, above; a mutant runs the ones that execute it, in this order, and
    // stops at the first that fails: the files that kill the most per second come first.
    testFiles: testSources.map((f) => `.mutation-build/${f.replace(/\.ts$/, '.mjs')}`),
    // A test that waits for something a mutant broke fails after 5 s (the slowest test takes
    // 1.4 s) instead of waiting out its own 10 s deadline past Stryker's timeout: with forceBail
    // that kills the mutant in seconds, where a Stryker timeout cost about 18 s and a restart.
    nodeArgs: ['--test-reporter=tap', '--test-timeout=5000', '-r', '{{hookFile}}', '{{testFile}}'],
    forceBail: true,
  },
  // No type checker: on 2 cores it takes one of the two slots and the test runner waits on it (a
  // run took over an hour). esbuild strips types, so a type-invalid mutant still runs and is killed or
  // shows as a survivor to review.
  coverageAnalysis: 'perTest',
  // String literals are texts of log lines and messages, for people, or the status values of the
  // fence and claim, which the deliberate-bug tests pin one by one (docs/testing.md).
  mutator: { excludedMutations: ['StringLiteral'] },
  // A pattern already shown equivalent (drizzle's `behavior: 'immediate'`) is not run;
  // scripts/mutation.mjs still counts its mutants as undetected (scripts/mutation-ignorers.mjs). Log
  // lines are run like any code: log-lines.test.ts and the outage tests read what they say.
  appendPlugins: ['./scripts/mutation-ignorers.mjs'],
  ignorers: ['reflow-immediate'],
  ignoreStatic: true,
  // Three test processes on two cores: each waits on timers, fsyncs and its own start as much as it computes.
  concurrency: 3,
  timeoutMS: 5_000,
  reporters: ['json', 'html', 'clear-text', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  tempDirName: 'reports/.stryker-tmp',
  cleanTempDir: 'always',
};
