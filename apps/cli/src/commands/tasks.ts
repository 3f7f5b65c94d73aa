// `reflow tasks list|show|cancel|approve|reject`: the operator API (/api/tasks) from a terminal.
import Table from 'cli-table3';
import { Command, InvalidArgumentError } from 'commander';

interface ConnectionOptions {
  url: string;
  token?: string;
  json?: boolean;
}

class ApiFailure extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

async function call(options: ConnectionOptions, method: string, path: string, body?: unknown): Promise<any> {
  const url = new URL(`/api${path}`, options.url.replace(/\/(mcp|ui\/?)?$/, '/'));
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new ApiFailure(
      `Cannot reach ${url.origin}: ${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}. Is the server running? (--url)`,
      2,
    );
  }
  const answer: any = await res.json().catch(() => ({}));
  if (res.status === 401 || res.status === 403)
    throw new ApiFailure(`${answer.error ?? 'Unauthorised'}: pass an operator token with --token or REFLOW_TOKEN`, 1);
  if (!res.ok)
    throw new ApiFailure(`${answer.error ?? `HTTP ${res.status}`}${answer.code ? ` (${answer.code})` : ''}`, 1);
  return answer;
}

/** A table; colour only on a terminal, so piped output stays plain text. */
const table = (options: ConstructorParameters<typeof Table>[0] = {}) =>
  new Table({ ...options, style: { compact: true, ...(process.stdout.isTTY ? {} : { head: [], border: [] }) } });

const time = (iso: string | null) => (iso ? iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : '—');
const ms = (n: number | null) => (n === null ? '—' : n < 1000 ? `${n} ms` : `${(n / 1000).toFixed(1)} s`);

function printList(page: any): void {
  const rows = table({
    head: ['Task', 'Status', 'Kind', 'Created', 'Message'],
    colWidths: [46, 11, 14, 22, 46],
    wordWrap: true,
  });
  for (const t of page.tasks) rows.push([t.taskId, t.status, t.kind, time(t.createdAt), t.statusMessage ?? '']);
  console.log(page.tasks.length ? rows.toString() : 'No tasks match.');
  console.log(
    [...Object.entries(page.counts), ['awaiting approval', page.awaitingApproval ?? 0]]
      .map(([s, n]) => `${s} ${String(n)}`)
      .join(' · '),
  );
  if (page.nextCursor) console.log(`More: --cursor ${page.nextCursor}`);
}

function printDetail(d: any): void {
  const t = d.task;
  if (d.error) console.log(`ERROR ${d.error.code}: ${d.error.message}\n`);
  const facts = table();
  facts.push(
    { Task: t.taskId },
    { Status: `${t.status}${t.statusMessage ? ` — ${t.statusMessage}` : ''}` },
    { Kind: t.kind },
    { Owner: t.owner },
    { Attempts: `${t.attempt} of ${t.maxAttempts}` },
    { Created: time(t.createdAt) },
    { Finished: time(t.finishedAt) },
    { Timings: `queued ${ms(d.timings.queuedMs)}, ran ${ms(d.timings.runMs)}` },
    { Input: JSON.stringify(t.input) },
  );
  console.log(facts.toString());
  console.log(`\nProgress history (${d.events.length} events)`);
  const events = table({ head: ['At', 'Attempt', 'Kind', 'Message'], colWidths: [22, 9, 11, 90], wordWrap: true });
  // A long solve records many progress lines: show how it began and how it ended.
  const shown = d.events.length <= 12 ? d.events : [...d.events.slice(0, 4), undefined, ...d.events.slice(-6)];
  for (const e of shown)
    events.push(
      e ? [time(e.at), e.attempt, e.kind, e.message] : ['…', '', '', `${d.events.length - 10} more (--json shows all)`],
    );
  console.log(events.toString());
  const r = d.reflow;
  if (!r || r.source === 'none') return;
  if (r.awaitingApproval)
    console.log(
      `\n${r.awaitingApproval.message}\nDecide: reflow tasks approve ${t.taskId} | reflow tasks reject ${t.taskId} --reason …`,
    );
  if (r.operatorDecision)
    console.log(
      `\n${r.operatorDecision.decision === 'approved' ? 'Approved' : 'Rejected'} by ${r.operatorDecision.by} at ${time(r.operatorDecision.at)}${r.operatorDecision.reason ? `: ${r.operatorDecision.reason}` : ''}`,
    );
  if (r.summary)
    console.log(
      `\nMoved ${r.summary.moved} of ${r.summary.affected}; ${r.summary.unresolved} need rebooking; total shift ${r.summary.totalShiftMinutes} min`,
    );
  if (r.unresolvedBookings.length) {
    const rows = table({ head: ['Booking', 'Code', 'Reason'], colWidths: [12, 18, 90], wordWrap: true });
    for (const u of r.unresolvedBookings) rows.push([u.bookingId, u.code, u.reason]);
    console.log(rows.toString());
  }
}

const positiveInt = (value: string) => {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
};

/** Wraps an action so API failures print one clear line and set the exit code. */
const run =
  (action: (...args: any[]) => Promise<void>) =>
  async (...args: any[]) => {
    try {
      await action(...args);
    } catch (error) {
      if (!(error instanceof ApiFailure)) throw error;
      console.error(error.message);
      process.exitCode = error.exitCode;
    }
  };

export function tasksCommand(): Command {
  const tasks = new Command('tasks').description('Operator view of the tasks on a running server (its /api)');
  const connection = (cmd: Command) =>
    cmd
      .option(
        '--url <url>',
        'the server (default: $REFLOW_URL or http://127.0.0.1:3000)',
        process.env.REFLOW_URL || 'http://127.0.0.1:3000',
      )
      .option(
        '--token <token>',
        'operator bearer token (default: $REFLOW_TOKEN)',
        process.env.REFLOW_TOKEN || undefined,
      )
      .option('--json', 'print the API answer as JSON');

  connection(tasks.command('list').description('Tasks, newest first, with counts per status'))
    .option(
      '--status <statuses>',
      'only these statuses, comma-separated (working, input_required, completed, failed, cancelled)',
    )
    .option('--awaiting', "only reflows waiting for an operator's decision (APPROVAL=operator)")
    .option('--kind <kind>', 'only this kind, e.g. reflow_month')
    .option('--since <iso>', 'only tasks created at or after this ISO date or instant')
    .option('--limit <n>', 'page size (1–200)', positiveInt)
    .option('--cursor <cursor>', 'the next page, as printed after the previous one')
    .action(
      run(async (o) => {
        const query = new URLSearchParams();
        for (const key of ['status', 'kind', 'since', 'limit', 'cursor'] as const)
          if (o[key] !== undefined) query.set(key, String(o[key]));
        if (o.awaiting) query.set('awaiting', 'operator');
        const page = await call(o, 'GET', `/tasks${query.size ? `?${query.toString()}` : ''}`);
        if (o.json) console.log(JSON.stringify(page, null, 2));
        else printList(page);
      }),
    );

  connection(
    tasks
      .command('show')
      .argument('<id>', 'task id')
      .description('One task: error, timings, progress history, what moved'),
  ).action(
    run(async (id, o) => {
      const detail = await call(o, 'GET', `/tasks/${encodeURIComponent(id)}`);
      if (o.json) console.log(JSON.stringify(detail, null, 2));
      else printDetail(detail);
    }),
  );

  connection(
    tasks
      .command('cancel')
      .argument('<id>', 'task id')
      .description('Cancel a working task; its work so far is discarded'),
  ).action(
    run(async (id, o) => {
      const task = await call(o, 'POST', `/tasks/${encodeURIComponent(id)}/cancel`);
      if (o.json) console.log(JSON.stringify(task, null, 2));
      else console.log(`Cancelled ${task.taskId}`);
    }),
  );
  for (const [verb, decided] of [
    ['approve', 'Approved'],
    ['reject', 'Rejected'],
  ] as const)
    connection(
      tasks
        .command(verb)
        .argument('<id>', 'task id')
        .description(
          verb === 'approve'
            ? "Approve a reflow waiting for an operator's decision: its plan is applied, re-checked against the bookings as they are now"
            : "Reject a reflow waiting for an operator's decision (--reason required): nothing is applied",
        ),
    )
      .option(verb === 'reject' ? '--reason <text>' : '--reason [text]', 'why (the client is told it in its result)')
      .action(
        run(async (id, o) => {
          if (verb === 'reject' && !o.reason?.trim()) throw new ApiFailure('reject needs --reason "…"', 1);
          const body = typeof o.reason === 'string' ? { reason: o.reason } : {};
          const task = await call(o, 'POST', `/tasks/${encodeURIComponent(id)}/${verb}`, body);
          if (o.json) console.log(JSON.stringify(task, null, 2));
          else console.log(`${decided} ${task.taskId}`);
        }),
      );
  return tasks;
}
