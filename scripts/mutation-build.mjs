// Stryker's buildCommand (stryker.config.mjs): bundles each mutation test file, with the sandbox's
// mutated sources, into one plain JS file under .mutation-build/, once per run. Each mutant then
// starts `node <bundle>` instead of `node --import tsx <file>`, which loaded and transformed the
// whole package graph in every test process: about half of each test file's run time.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { builtinModules } from 'node:module';
import { build } from 'esbuild';
import { postgresTestSources, testSources } from '../stryker.config.mjs';

/** Packages that stay imports: better-sqlite3's native addon, piscina's and pino's worker files. */
const KEEP_EXTERNAL = /^(better-sqlite3|piscina|pino|thread-stream|pg-native)(\/|$)/;
const TIMED_NODE_TEST = 'timed-node-test';
const TEST_TIMEOUT_MS = 5_000;
/** node:test's functions, each test and hook given TEST_TIMEOUT_MS unless it sets its own. */
const timedNodeTest = `
import * as nodeTest from 'node:test';
const timed = (run) => Object.assign((...args) => {
  const name = args.find((a) => typeof a === 'string');
  const options = args.find((a) => typeof a === 'object' && a !== null) ?? {};
  const fn = args.find((a) => typeof a === 'function');
  return run(...(name === undefined ? [] : [name]), { timeout: ${TEST_TIMEOUT_MS}, ...options }, ...(fn ? [fn] : []));
}, run);
const hook = (run) => (fn, options = {}) => run(fn, { timeout: ${TEST_TIMEOUT_MS}, ...options });
export * from 'node:test';
export const test = timed(nodeTest.test);
export const it = timed(nodeTest.it);
export const describe = timed(nodeTest.describe);
export const suite = timed(nodeTest.suite);
export const before = hook(nodeTest.before);
export const after = hook(nodeTest.after);
export const beforeEach = hook(nodeTest.beforeEach);
export const afterEach = hook(nodeTest.afterEach);
export default test;
`;

/** One build per kind of test file: on SQLite only (node-postgres stubbed), or on PostgreSQL too. */
const bundle = (entryPoints, { postgres }) =>
  build({
    entryPoints,
    outdir: '.mutation-build',
    outbase: '.',
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    // Bundled CommonJS packages that require() Node's modules get a real require.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    // @reflow/* resolve to the sandbox's own (mutated) packages, not through node_modules to the originals.
    tsconfig: 'tsconfig.mutation.json',
    logLevel: 'warning',
    plugins: [
      {
        // node:test with a 5 s timeout on every test and hook (node 20 applies --test-timeout only
        // under `node --test`, which would start each file in a second process). A test waiting for
        // what a mutant broke then fails in 5 s (the slowest takes 1.4 s), and forceBail kills the
        // mutant, instead of the test waiting out its own 10 s deadline past Stryker's timeout.
        name: 'test-timeout',
        setup(b) {
          b.onResolve({ filter: /^node:test$/ }, (args) =>
            args.importer === TIMED_NODE_TEST
              ? { path: 'node:test', external: true }
              : { path: TIMED_NODE_TEST, namespace: 'timed' },
          );
          b.onLoad({ filter: /.*/, namespace: 'timed' }, () => ({
            contents: timedNodeTest,
            loader: 'js',
            resolveDir: '.',
          }));
        },
      },
      {
        // The run's stores are SQLite (scripts/mutation.mjs): for a file that uses no PostgreSQL,
        // node-postgres becomes a stub that refuses to connect. Importing the real one took 50 ms of
        // every test process (its stream module probes for Cloudflare and loads fetch). A file of
        // postgresTestSources imports the real one from node_modules.
        name: 'no-postgres',
        setup(b) {
          if (postgres) {
            b.onResolve({ filter: /^pg$/ }, () => ({ path: 'pg', external: true }));
            return;
          }
          b.onResolve({ filter: /^pg$/ }, () => ({ path: 'pg', namespace: 'no-postgres' }));
          b.onLoad({ filter: /.*/, namespace: 'no-postgres' }, () => ({
            contents: `class Refused { constructor() { throw new Error('PostgreSQL is not part of the mutation run (SQLite only)'); } }
export default { Pool: Refused, Client: Refused, types: { setTypeParser() {}, getTypeParser() {} } };`,
            loader: 'js',
          }));
        },
      },
      {
        name: 'externals-and-file-urls',
        setup(b) {
          // Third-party packages are bundled too: importing them from node_modules took about 0.4 s of
          // every test process. Node's own modules stay imports, and so do packages that load files
          // by their own path at run time (a native addon, worker scripts).
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('node:') || builtinModules.includes(args.path) || KEEP_EXTERNAL.test(args.path)
              ? { path: args.path, external: true }
              : undefined,
          );
          // A module that finds files next to itself (seed data, migrations), or checks whether it is
          // the script being run (scripts/*.mjs), keeps its own location.
          b.onLoad({ filter: /\.(ts|mjs)$/ }, async (args) => ({
            contents: (await readFile(args.path, 'utf8')).replaceAll(
              'import.meta.url',
              JSON.stringify(pathToFileURL(args.path).href),
            ),
            loader: args.path.endsWith('.ts') ? 'ts' : 'js',
          }));
        },
      },
    ],
  });

await Promise.all([
  bundle(
    testSources.filter((f) => !postgresTestSources.includes(f)),
    { postgres: false },
  ),
  bundle(postgresTestSources, { postgres: true }),
]);
