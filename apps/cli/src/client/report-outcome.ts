import { EXIT, type ExitCode } from './exit-codes.ts';
import { renderResult } from './result-table.ts';
import type { CallResult, WireTask } from './wire-task.ts';

export interface OutputOptions {
  json?: boolean;
}

const textOf = (r: CallResult) =>
  r.content
    ?.filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');

/** Prints a direct or inlined tool result; a tool error (isError) is printed to stderr. */
export function reportResult(result: CallResult, out: OutputOptions, taskId?: string): ExitCode {
  if (out.json) {
    print({
      ...(taskId ? { taskId } : {}),
      status: result.isError ? 'error' : 'completed',
      result: result.structuredContent ?? null,
      text: textOf(result) ?? null,
    });
  } else if (result.isError) {
    process.stderr.write(`${textOf(result) ?? 'The tool reported an error'}\n`);
  } else {
    console.log(renderResult(result.structuredContent, textOf(result)));
  }
  return result.isError ? EXIT.error : EXIT.completed;
}

/** Prints what a task (or a call) is waiting for, and how it can be answered. */
export function reportInputRequired(
  inputRequests: Record<string, unknown> | undefined,
  out: OutputOptions,
  taskId?: string,
): ExitCode {
  if (out.json) {
    print({ ...(taskId ? { taskId } : {}), status: 'input_required', inputRequests: inputRequests ?? {} });
    return EXIT.inputRequired;
  }
  console.log(taskId ? `Task ${taskId} is waiting for input:` : 'The tool needs input before it can go on:');
  for (const [key, request] of Object.entries(inputRequests ?? {})) {
    const r = request as { method?: string; params?: { message?: string; requestedSchema?: unknown } };
    console.log(`  ${key}: ${r.params?.message ?? r.method ?? JSON.stringify(r)}`);
    if (r.params?.requestedSchema) console.log(`    answer schema: ${JSON.stringify(r.params.requestedSchema)}`);
  }
  console.log(
    taskId
      ? `Answer with tasks/update {"taskId":"${taskId}","inputResponses":{…}} (keys as above), then \`reflow resume ${taskId}\`.`
      : 'Answer by calling the tool again with inputResponses for the keys above.',
  );
  return EXIT.inputRequired;
}

/** Prints a settled task (or one asking for input) and returns the exit code its status means. */
export function reportTask(task: WireTask, out: OutputOptions): ExitCode {
  switch (task.status) {
    case 'completed':
      return reportResult(task.result ?? {}, out, task.taskId);
    case 'input_required':
      return reportInputRequired(task.inputRequests, out, task.taskId);
    case 'failed':
      if (out.json) print({ taskId: task.taskId, status: 'failed', error: task.error ?? null });
      else
        process.stderr.write(
          `Task ${task.taskId} failed: ${task.error ? `${task.error.message} (${task.error.code})` : (task.statusMessage ?? 'no reason given')}\n`,
        );
      return EXIT.failed;
    case 'cancelled':
      if (out.json) print({ taskId: task.taskId, status: 'cancelled', statusMessage: task.statusMessage ?? null });
      else process.stderr.write(`Task ${task.taskId} was cancelled; nothing was moved.\n`);
      return EXIT.cancelled;
    default:
      if (out.json) print({ taskId: task.taskId, status: task.status, statusMessage: task.statusMessage ?? null });
      return EXIT.interrupted;
  }
}

export function reportExpired(taskId: string, message: string, out: OutputOptions): ExitCode {
  if (out.json) print({ taskId, status: 'expired', message });
  else process.stderr.write(`Task ${taskId} is gone: ${message}. Its time-to-live passed, or it was never yours.\n`);
  return EXIT.expired;
}

const print = (value: unknown) => console.log(JSON.stringify(value));
