// Mutation testing of the task engine and its queries (claim, fence, cancel, park, finish) and of
// the apply, against the test files that cover them. `npm run test:mutation`; see docs/testing.md.
// In a sandbox copy of the packages: tsconfig.mutation.json maps @reflow/* to the copy's own folders
// (through node_modules they would lead back to the originals) for tsx (TSX_TSCONFIG_PATH, set by
// scripts/mutation.mjs).
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
  ],
  mutate: [
    'packages/tasks/src/task-engine.ts',
    'packages/tasks/src/attempt-runner.ts',
    'packages/db/src/queries/task-claim-queries.ts',
    'packages/db/src/queries/task-state-queries.ts',
    'packages/db/src/queries/task-rows.ts',
    'packages/db/src/queries/input-queries.ts',
    'packages/reflow/src/apply-plan.ts',
  ],
  testRunner: 'tap',
  tap: {
    testFiles: [
      'packages/tasks/test/task-engine.test.ts',
      'packages/tasks/test/recovery.test.ts',
      'packages/tasks/test/input-required.test.ts',
      'packages/tasks/test/lease-lapse.test.ts',
      'packages/tasks/test/expiry-fence.test.ts',
      'packages/reflow/test/apply-chain.test.ts',
      'packages/tasks/test/poll-interval.test.ts',
    ],
    nodeArgs: ['--import', 'tsx', '--test-reporter=tap', '-r', '{{hookFile}}', '{{testFile}}'],
    forceBail: true,
  },
  // No type checker: on 2 cores it takes one of the two slots and the test runner waits on it (a
  // run took over an hour). tsx strips types, so a type-invalid mutant still runs and is killed or
  // shows as a survivor to review.
  coverageAnalysis: 'perTest',
  // String literals are texts of log lines and messages, for people, or the status values of the
  // fence and claim, which the deliberate-bug tests pin one by one (docs/testing.md).
  mutator: { excludedMutations: ['StringLiteral'] },
  ignoreStatic: true,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  concurrency: 2,
  timeoutMS: 5_000,
  reporters: ['json', 'html', 'clear-text', 'progress'],
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  tempDirName: 'reports/.stryker-tmp',
  cleanTempDir: 'always',
};
