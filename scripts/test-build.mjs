// `npm test` bundles the server and the CLI once (scripts/build.mjs, into a cache folder) and names
// the folder in REFLOW_TEST_BUILD; the tests that start a server or `reflow` as a child process run
// that bundle instead of the sources through tsx, whose start-up costs every child a second or two
// of CPU. Outside `npm test` (a single `tsx --test`, the benchmarks, the soak) the variable is unset
// and they run the sources as before.
import { join } from 'node:path';

/** The path of a file of the bundle (`solve-worker.js`), or undefined when no bundle was built. */
export function builtFile(name) {
  const dir = process.env.REFLOW_TEST_BUILD;
  return dir ? join(dir, name) : undefined;
}

/** The command (node and its arguments) that runs the bundled `name` (server or cli), or undefined when no bundle was built. */
export function builtEntry(name) {
  const dir = process.env.REFLOW_TEST_BUILD;
  return dir ? [process.execPath, '--enable-source-maps', join(dir, `${name}.js`)] : undefined;
}
