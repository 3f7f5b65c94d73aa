// Stryker's buildCommand (stryker.config.mjs): bundles each mutation test file, with the sandbox's
// mutated sources, into one plain JS file under .mutation-build/, once per run. Each mutant then
// starts `node <bundle>` instead of `node --import tsx <file>`, which loaded and transformed the
// whole package graph in every test process: about half of each test file's run time.
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { testSources } from '../stryker.config.mjs';

await build({
  entryPoints: testSources,
  outdir: '.mutation-build',
  outbase: '.',
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  // @reflow/* resolve to the sandbox's own (mutated) packages, not through node_modules to the originals.
  tsconfig: 'tsconfig.mutation.json',
  logLevel: 'warning',
  plugins: [
    {
      name: 'externals-and-file-urls',
      setup(b) {
        // Third-party packages stay imports (resolved from node_modules at run time).
        b.onResolve({ filter: /^[^./]/ }, (args) =>
          args.path.startsWith('@reflow/') ? undefined : { path: args.path, external: true },
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
