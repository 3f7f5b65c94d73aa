import { setTimeout as sleep } from 'node:timers/promises';
import { PermanentTaskError, type TaskHandler, type TaskOutcome } from '@reflow/tasks';

// The task kinds behind the conformance suite's fixture tools. They run on the same durable engine
// as reflow_month (rows, leases, fenced writes, input_required parking); only the work is trivial.

export const FIXTURE_KINDS = {
  slowCompute: 'conformance.slow_compute',
  failingJob: 'conformance.failing_job',
  protocolErrorJob: 'conformance.protocol_error_job',
  confirmDelete: 'conformance.confirm_delete',
  multiInput: 'conformance.multi_input',
  greetLater: 'conformance.greet_later',
} as const;

const text = (message: string, extra: Record<string, unknown> = {}) => ({
  content: [{ type: 'text', text: message }],
  ...extra,
});
const done = (result: Record<string, unknown>, message: string): TaskOutcome => ({
  status: 'completed',
  result,
  message,
});

/** A form-mode elicitation as an embedded input request (SEP-2322 / SEP-2663 `inputRequests` entry). */
export function elicitation(message: string, properties: Record<string, unknown>, required: string[]) {
  return {
    method: 'elicitation/create',
    params: { mode: 'form', message, requestedSchema: { type: 'object', properties, required } },
  };
}

/** The accepted form content of an elicitation answer, or undefined for decline, cancel or a malformed answer. */
export function accepted(answer: unknown): Record<string, unknown> | undefined {
  const a = answer as { action?: unknown; content?: unknown } | undefined;
  return a?.action === 'accept' && a.content !== null && typeof a.content === 'object'
    ? (a.content as Record<string, unknown>)
    : undefined;
}

export function fixtureTaskHandlers(): TaskHandler<any>[] {
  return [
    {
      kind: FIXTURE_KINDS.slowCompute,
      describe: (input: { seconds: number; label?: string }) =>
        `Computing ${input.label ?? 'slow_compute'} for ${input.seconds}s`,
      async run(input: { seconds: number; label?: string }, ctx) {
        // Cancellation aborts the sleep; the engine has already turned the row `cancelled`.
        await sleep(input.seconds * 1000, undefined, { signal: ctx.signal });
        const label = input.label ?? 'slow_compute';
        return done(
          text(`Computed ${label} in ${input.seconds}s`, { structuredContent: { label, seconds: input.seconds } }),
          `Computed ${label}`,
        );
      },
    },
    {
      kind: FIXTURE_KINDS.failingJob,
      async run(_input, ctx) {
        await sleep(1000, undefined, { signal: ctx.signal });
        // A tool execution error: the task completes, its result says isError.
        return done(text('The job failed: the fixture always fails', { isError: true }), 'The job failed');
      },
    },
    {
      kind: FIXTURE_KINDS.protocolErrorJob,
      async run() {
        throw new PermanentTaskError('The fixture raised an internal error', -32603);
      },
    },
    {
      kind: FIXTURE_KINDS.confirmDelete,
      async run(input: { filename: string }, ctx) {
        if (!ctx.resumed)
          return {
            status: 'input_required',
            requests: {
              confirm: elicitation(`Delete ${input.filename}?`, { confirm: { type: 'boolean', title: 'Delete it' } }, [
                'confirm',
              ]),
            },
            message: `Waiting for confirmation to delete ${input.filename}`,
          };
        const yes = accepted(ctx.resumed.responses.confirm)?.confirm === true;
        const message = yes ? `Deleted ${input.filename}` : `Kept ${input.filename}`;
        return done(text(message, { structuredContent: { filename: input.filename, deleted: yes } }), message);
      },
    },
    {
      kind: FIXTURE_KINDS.multiInput,
      async run(_input, ctx) {
        if (!ctx.resumed)
          return {
            status: 'input_required',
            requests: {
              name: elicitation('Your name?', { name: { type: 'string' } }, ['name']),
              confirm: elicitation('Go ahead?', { confirm: { type: 'boolean' } }, ['confirm']),
            },
            message: 'Waiting for two answers',
          };
        const answered = accepted(ctx.resumed.responses.name)?.name;
        const name = typeof answered === 'string' ? answered : '';
        const confirm = accepted(ctx.resumed.responses.confirm)?.confirm === true;
        return done(
          text(`Got ${name || 'no name'}, confirm=${confirm}`, { structuredContent: { name, confirm } }),
          'Both answers received',
        );
      },
    },
    {
      kind: FIXTURE_KINDS.greetLater,
      async run(input: { name: string }) {
        return done(text(`Hello, ${input.name}!`), `Greeted ${input.name}`);
      },
    },
  ];
}
