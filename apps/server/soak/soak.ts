// npm run soak -- --minutes 10: mixed traffic against a real server process, then the checks.
// Exits non-zero when any check fails. See run-soak.ts.
import { writeFileSync } from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { runSoak } from './run-soak.ts';
import { DEFAULT_SOAK_OPTIONS } from './soak-options.ts';

const positive = (name: string, integer: boolean) => (value: string) => {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n)))
    throw new InvalidArgumentError(`${name} must be a positive ${integer ? 'integer' : 'number'}`);
  return n;
};

const program = new Command('soak')
  .description(
    'Mixed MCP traffic against a real server process for a while, then checks that nothing is stuck, lost or growing',
  )
  .option(
    '--minutes <n>',
    'how long new traffic starts (fractions allowed)',
    positive('--minutes', false),
    DEFAULT_SOAK_OPTIONS.minutes,
  )
  .option(
    '--clients <n>',
    'concurrent traffic clients (at least one of each of the four kinds)',
    positive('--clients', true),
    DEFAULT_SOAK_OPTIONS.clients,
  )
  .option('--seed <n>', 'seed of the site and of every client', positive('--seed', true), DEFAULT_SOAK_OPTIONS.seed)
  .option(
    '--poll-ms <n>',
    'poll at this interval instead of the pollIntervalMs the server hands out',
    positive('--poll-ms', true),
  )
  .option('--ttl-ms <n>', 'task TTL of the server (default: a third of the run, 10–120 s)', positive('--ttl-ms', true))
  .option('--report <file>', 'also write the report to this file')
  .parse();

const opts = program.opts<{
  minutes: number;
  clients: number;
  seed: number;
  pollMs?: number;
  ttlMs?: number;
  report?: string;
}>();
const outcome = await runSoak({ ...opts, onProgress: (line) => console.error(line) });
console.log(outcome.report);
if (opts.report) writeFileSync(opts.report, `${outcome.report}\n`);
process.exitCode = outcome.passed ? 0 : 1;
