// `npm test` bundles the server and the CLI once (scripts/build.mjs, into a cache folder) and names
// the folder in REFLOW_TEST_BUILD; the tests that start a server or `reflow` as a child process run
// that bundle instead of the sources through tsx, whose start-up costs every child a second or two
// of CPU; the tests' own child scripts run from the run's test bundles (childScript). Outside
// `npm test` (a single `tsx --test`, the benchmarks, the soak) the variables are unset and every
// child runs the sources through tsx.
import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The path of a file of the bundle (`solve-worker.js`), or undefined when no bundle was built. */
export function builtFile(name) {
  const dir = process.env.REFLOW_TEST_BUILD;
  return dir ? join(dir, name) : undefined;
}

/** The command (node and its arguments) that runs the bundled `name` (server or cli), or undefined when no bundle was built. */
export function builtEntry(name) {
  const dir = process.env.REFLOW_TEST_BUILD;
  // Without --enable-source-maps: it made node read the maps of every module with one (ours and
  // many packages') at each start, about 160 ms of CPU; a child's stack names the bundle's lines.
  return dir ? [process.execPath, join(dir, `${name}.js`)] : undefined;
}

/**
 * Node's arguments to run a TypeScript script of the tests as a child process (a state-file
 * writer, a snapshot printer, the SDK 1.x peer): under `npm test`, the run's bundle of it
 * (scripts/test-bundle.mjs, CHILD_SCRIPTS; REFLOW_TEST_FILES names the folder), which starts
 * without tsx's second of CPU; otherwise the source through tsx.
 */
export function childScript(source) {
  const dir = process.env.REFLOW_TEST_FILES;
  const bundle = dir && join(dir, relative(root, source)).replace(/\.ts$/, '.mjs');
  return bundle && existsSync(bundle) ? [bundle] : ['--import', 'tsx', source];
}
