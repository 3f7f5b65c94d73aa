#!/usr/bin/env node
// `npx reflow …` from a checkout: runs the TypeScript sources through tsx, so no build step is needed.
// (The Docker image runs the bundled dist/cli.js instead.)
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
