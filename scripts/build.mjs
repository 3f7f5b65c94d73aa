// Production build: bundles our TypeScript into dist/ (server, CLI, solver worker). Third-party
// packages stay external and come from node_modules, so native better-sqlite3 and piscina's own
// worker script load as usual. Dev, demo and tests run the sources through tsx and need no build.
import { copyFileSync, readFileSync } from 'node:fs';
import { build } from 'esbuild';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const external = Object.keys(pkg.dependencies ?? {}).flatMap((name) => [name, `${name}/*`]);

await build({
  entryPoints: {
    server: 'apps/server/src/server.ts',
    cli: 'apps/cli/src/main.ts',
    'solve-worker': 'packages/reflow/src/solve-worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: true,
  external,
  banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  logLevel: 'info',
});

// The seeded demo month sits beside the bundle, where DEMO_SITE_PATH points once bundled, so
// `node dist/server.js` seeds an empty database without SEED_FILE, as `npm start` does.
copyFileSync('seed/riverside-2026-09.json', 'dist/riverside-2026-09.json');
// The WAL checkpointer's thread is plain JavaScript, started by URL beside the bundle.
copyFileSync('packages/db/src/wal-checkpoint-worker.mjs', 'dist/wal-checkpoint-worker.mjs');
