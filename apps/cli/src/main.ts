#!/usr/bin/env node
// `reflow`: the command line. Each command lives in commands/; this file only wires arguments.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { runDemo } from './commands/demo.ts';
import { runImport } from './commands/import.ts';
import { tasksCommand } from './commands/tasks.ts';

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

const program = new Command('reflow').description('Studio reflow: durable MCP tasks that move bookings out of offline rooms');

program
  .command('demo')
  .description('Run the whole story on the seeded month: start a server, call reflow_month as a task, poll, print')
  .option('--url <url>', 'use a running server instead of starting one (its /mcp URL)')
  .option('--database <path>', 'database file for the in-process server (default: a fresh temporary file)')
  .option('--workers <n>', 'worker threads for the in-process server', positiveInt)
  .action(async (options) => {
    process.exitCode = await runDemo(options);
  });

program
  .command('import')
  .argument('<file>', 'site file in the import format (see seed/riverside-2026-09.json)')
  .description('Import a site into DATABASE_PATH (created and migrated if new); a bad file changes nothing')
  .option('--replace', 'replace the site and bookings already in the database')
  .option('--database <path>', 'database file (default: $DATABASE_PATH or ./data/reflow.db)')
  .action((file, options) => {
    const path = options.database ?? process.env.DATABASE_PATH ?? './data/reflow.db';
    mkdirSync(dirname(path), { recursive: true });
    process.exitCode = runImport(file, { ...options, database: path });
  });

program.addCommand(tasksCommand());

await program.parseAsync();
