// `npm test` bundles the test files themselves (with the workspace code they import) once per
// run, and runs each bundle with plain node. Through tsx, every test process spent about 2.5 s of
// CPU loading the app's sources and node_modules through the loader's hooks, against about 1.5 s
// for a bundle; over some 190 file runs that was a fifth of the suite's CPU.
// - Third-party packages stay external and load from node_modules as usual.
// - In our own files, `import.meta.url`, `.dirname` and `.filename` are written as the source
//   file's own, so every path a test or a helper computes from them (fixtures, the repository's
//   root, migrations, workers) is the one it has when run from sources.
// - Files in FROM_SOURCES run through tsx as before: they start TypeScript in a worker thread or
//   a child process of their own that only tsx can load.
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Test files that load a TypeScript worker of their own (piscina's `filename`): they run through tsx. */
export const FROM_SOURCES = ['packages/tasks/test/worker-faults.test.ts'];

/**
 * Scripts the tests start as child processes, bundled beside the test files (run them through
 * `childScript` in scripts/test-build.mjs).
 */
export const CHILD_SCRIPTS = [
  'apps/cli/test/state-file-writer.ts',
  'packages/reflow/test/fixtures/print-snapshot.ts',
  'apps/server/bench/sdk1-peer-server.ts',
];

/** Our files: the workspace's TypeScript and the repository's scripts. */
const OURS = /\/(apps|packages|seed|scripts)\/.*\.(ts|mts|mjs)$/;

/**
 * Writes a bundle per test file, and per child script, under `outdir` (the same relative path,
 * `.mjs`); returns a map from each file (relative) to its bundle.
 */
export async function bundleTestFiles(files, outdir) {
  const entries = [...files.filter((file) => !FROM_SOURCES.includes(file)), ...CHILD_SCRIPTS];
  rmSync(outdir, { recursive: true, force: true }); // chunks are named by hash: the last run's would pile up
  const result = await build({
    absWorkingDir: root,
    entryPoints: entries,
    outdir,
    outbase: root,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
    platform: 'node',
    format: 'esm',
    target: 'node20',
    sourcemap: 'linked',
    sourcesContent: false,
    metafile: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'tests-as-from-sources',
        setup(b) {
          // Bare specifiers other than the workspace's own packages stay external.
          b.onResolve({ filter: /^[^./]/ }, (args) =>
            args.path.startsWith('@reflow/') ? undefined : { path: args.path, external: true },
          );
          b.onLoad({ filter: OURS }, (args) => {
            if (args.path.includes('/node_modules/')) return undefined;
            const text = readFileSync(args.path, 'utf8')
              .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href))
              .replaceAll('import.meta.dirname', JSON.stringify(dirname(args.path)))
              .replaceAll('import.meta.filename', JSON.stringify(args.path));
            return { contents: text, loader: /\.m?ts$/.test(args.path) ? 'ts' : 'js', resolveDir: dirname(args.path) };
          });
        },
      },
    ],
  });
  const bundles = new Map();
  for (const [out, meta] of Object.entries(result.metafile.outputs))
    if (meta.entryPoint) bundles.set(relative(root, join(root, meta.entryPoint)), join(root, out));
  return bundles;
}
