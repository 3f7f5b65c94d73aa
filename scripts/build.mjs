// Production build: bundles our TypeScript into dist/ (server, CLI, solver worker, and the chunks
// they share or load on use, beside them). Third-party packages stay external and come from
// node_modules, so native better-sqlite3 and piscina's own worker script load as usual. Dev and
// demo run the sources through tsx and need no build; `npm test` bundles the same sources once into
// a cache folder and starts its child servers and CLI processes from there (scripts/run-tests.mjs),
// which saves tsx's start-up in every one.
import { copyFileSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Bundles server.js, cli.js and solve-worker.js (with the seed file and the checkpoint worker beside them) into `outdir`. */
export async function buildBundle(outdir = join(root, 'dist'), logLevel = 'info') {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const external = Object.keys(pkg.dependencies ?? {}).flatMap((name) => [name, `${name}/*`]);
  // Chunk names carry a hash: without a clean folder, an earlier build's chunks would pile up.
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: {
      server: 'apps/server/src/server.ts',
      cli: 'apps/cli/src/main.ts',
      'solve-worker': 'packages/reflow/src/solve-worker.ts',
    },
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // Shared code and what the CLI loads on use (its server commands) go to chunk files beside the
    // entries (where the paths the code takes from import.meta.url still point), so a client
    // command does not load the server.
    splitting: true,
    chunkNames: '[name]-[hash]',
    target: 'node20',
    sourcemap: true,
    external,
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel,
  });
  // The seeded demo month sits beside the bundle, where DEMO_SITE_PATH points once bundled, so
  // `node dist/server.js` seeds an empty database without SEED_FILE, as `npm start` does.
  copyFileSync(join(root, 'seed/riverside-2026-09.json'), join(outdir, 'riverside-2026-09.json'));
  // The WAL checkpointer's thread is plain JavaScript, started by URL beside the bundle.
  copyFileSync(join(root, 'packages/db/src/wal-checkpoint-worker.mjs'), join(outdir, 'wal-checkpoint-worker.mjs'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildBundle();
