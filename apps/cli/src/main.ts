#!/usr/bin/env node
// `reflow`: the command line. Each command lives in commands/; this file only wires arguments.
// The commands that run a server or open the database (demo, import, mcp) load that code when they
// run: a client command (call, resume, cancel, tasks) starts without the server, the store and their
// dependencies, in about a third of the CPU.
import { Command, InvalidArgumentError, Option } from 'commander';
import { runCall } from './commands/call.ts';
import { runCancel } from './commands/cancel.ts';
import { runResume } from './commands/resume.ts';
import { tasksCommand } from './commands/tasks.ts';
import { databaseOption, databaseUrlOption } from './store-options.ts';

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

const nonNegativeInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a whole number, 0 or more');
  return n;
};

/** Options every MCP-client command shares: where the server is (HTTP, or its own over stdio), and how to wait. */
const clientOptions = (command: Command) =>
  command
    .option(
      '--url <url>',
      "the server's /mcp URL; a bare server URL gets /mcp (default: $REFLOW_URL or http://127.0.0.1:3000/mcp)",
    )
    .option(
      '--token <token>',
      'bearer token sent as Authorization (default: $REFLOW_TOKEN); never written to the state file',
    )
    .addOption(
      new Option(
        '--stdio',
        'start `reflow mcp` on the store (--database / --database-url, else as `reflow mcp` picks it) and speak to it over stdio',
      ).conflicts(['url', 'token']),
    )
    .addOption(databaseOption('with --stdio: the SQLite file its server opens'))
    .addOption(databaseUrlOption())
    .option('--state-file <path>', 'where task handles are kept (default: $REFLOW_STATE_FILE or ~/.reflow/tasks.json)')
    .option('--json', 'print one JSON object per task on stdout instead of tables')
    .option('--poll', 'wait by polling tasks/get only, without listening for task status notifications')
    .option('--debug', 'print every MCP message sent (→) and received (←) on stderr, and a stdio server’s log')
    .hook('preAction', (self) => {
      const o = self.opts();
      if ((o.database !== undefined || o.databaseUrl !== undefined) && !o.stdio)
        self.error(
          'error: --database and --database-url choose the store of the server --stdio starts; give --stdio too (or --url for a running server)',
        );
    });

const program = new Command('reflow').description(
  'Studio reflow: durable MCP tasks that move bookings out of offline rooms',
);

program
  .command('demo')
  .description('Run the whole story on the seeded month: start a server, call reflow_month as a task, poll, print')
  .addOption(databaseOption('database file for the in-process server (default: a fresh temporary file)'))
  .addOption(databaseUrlOption())
  .option('--url <url>', 'use a running server instead of starting one (its /mcp URL)')
  .option('--workers <n>', 'worker threads for the in-process server', positiveInt)
  .option(
    '--outlive',
    'the work outlives its server: a server process is SIGKILLed mid-solve and restarted; the same task completes',
  )
  .action(async (options) => {
    if (options.outlive && (options.url || options.database || options.databaseUrl || options.workers))
      program.error(
        '--outlive starts and kills its own server processes: it takes no --url, --database, --database-url or --workers',
      );
    process.exitCode = options.outlive
      ? await (await import('./commands/demo-outlive.ts')).runOutliveDemo()
      : await (await import('./commands/demo.ts')).runDemo(options);
  });

program
  .command('import')
  .argument('<file>', 'site file in the import format (see seed/riverside-2026-09.json)')
  .description(
    'Import a site into the database (PostgreSQL at --database-url, else SQLite; created and migrated if new); a bad file changes nothing',
  )
  .option('--replace', 'replace the site and bookings already in the database')
  .addOption(databaseOption('SQLite database file (default: $DATABASE_PATH or ./data/reflow.db)'))
  .addOption(databaseUrlOption())
  .action(async (file, options) => {
    const { runImport } = await import('./commands/import.ts');
    process.exitCode = await runImport(file, options);
  });

clientOptions(
  program
    .command('call')
    .description(
      'Call reflow_month as an MCP client that declares the Tasks extension; save the handle, poll, print the result',
    )
    .requiredOption('--month <YYYY-MM>', 'the month to reflow')
    .requiredOption('--offline <rooms...>', 'room ids going offline (space- or comma-separated)')
    .option('--from <YYYY-MM-DD>', 'first offline day (default: the 1st)')
    .option('--to <YYYY-MM-DD>', "last offline day, inclusive (default: the month's last day)")
    .option('--dry-run', 'solve and report, but write nothing')
    .option('--confirm', 'after the solve, ask on the terminal (or read y/n from stdin) before the moves are applied'),
).action(async (options) => {
  process.exitCode = await runCall(options);
});

clientOptions(
  program
    .command('resume')
    .argument('[taskId]', 'one task (default: every unfinished task in the state file)')
    .description('Finish waiting for tasks a killed or interrupted `reflow call` left behind'),
).action(async (taskId, options) => {
  process.exitCode = await runResume(taskId, options);
});

clientOptions(
  program
    .command('cancel')
    .argument('<taskId>', 'the task to cancel')
    .description('Cancel a task; a cancelled reflow moves nothing'),
).action(async (taskId, options) => {
  process.exitCode = await runCancel(taskId, options);
});

program
  .command('mcp')
  .description('Serve the same tools over stdio (for hosts that launch MCP servers as processes); logs go to stderr')
  .option('--stdio', 'serve over stdio (the default and only transport of this command)')
  .addOption(databaseOption('SQLite database file (default: $DATABASE_PATH or ./data/reflow.db)'))
  .addOption(databaseUrlOption())
  .option('--workers <n>', 'worker threads (default: $WORKERS or 2)', nonNegativeInt)
  .action(async (options) => {
    const { runMcp } = await import('./commands/mcp.ts');
    process.exitCode = await runMcp(options);
  });
program.addCommand(tasksCommand());

await program.parseAsync();
