#!/usr/bin/env node
// `npx reflow …` from a checkout: runs the TypeScript sources through tsx, so no build step is needed.
// (The Docker image runs the bundled dist/cli.js instead.)
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const main = fileURLToPath(new URL('../src/main.ts', import.meta.url));
// Commands that solve in worker threads (the worker loads .ts too). Node 20's worker threads
// inherit loaders given on the command line, not ones registered at run time, so these run in a
// child `node --import tsx`; signals are passed on and its exit code is ours.
const RUNS_WORKERS = new Set(['mcp', 'demo']);
const tsxOnCommandLine = process.execArgv.some((arg) => arg.includes('tsx'));

if (RUNS_WORKERS.has(process.argv[2]) && !tsxOnCommandLine) {
  const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), main, ...process.argv.slice(2)], {
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 128 + 15 : 1)));
} else {
  register();
  await import('../src/main.ts');
}
