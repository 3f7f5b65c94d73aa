import createError from '@fastify/error';

// Stable codes a program can act on; the message says what was wrong to a person.
export const UnknownTaskError = createError<'RFL_UNKNOWN_TASK', 404, [string]>(
  'RFL_UNKNOWN_TASK',
  'No task %s (unknown or past its time-to-live)',
  404,
);
export const TaskAlreadyFinishedError = createError<'RFL_TASK_FINISHED', 409, [string, string]>(
  'RFL_TASK_FINISHED',
  'Task %s is already %s; only working tasks can be cancelled',
  409,
);
export const NotAwaitingApprovalError = createError<'RFL_NOT_AWAITING_APPROVAL', 409, [string, string]>(
  'RFL_NOT_AWAITING_APPROVAL',
  "Task %s is not waiting for an operator's decision (it is %s); nothing was changed",
  409,
);
export const ReasonRequiredError = createError<'RFL_REASON_REQUIRED', 400, []>(
  'RFL_REASON_REQUIRED',
  'A rejection needs a reason ({"reason": "…"}): the client is told it in its result',
  400,
);
export const NothingAppliedError = createError<'RFL_NOTHING_APPLIED', 409, [string]>(
  'RFL_NOTHING_APPLIED',
  'Task %s is not a completed reflow that applied its moves (a dry run, rejected, or not finished): it changed nothing to export',
  409,
);
export const NotADryRunError = createError<'RFL_NOT_A_DRY_RUN', 409, [string]>(
  'RFL_NOT_A_DRY_RUN',
  'Task %s is not a completed dry run of a reflow: there is no previewed plan to apply',
  409,
);
export const BadFilterError = createError<'RFL_BAD_FILTER', 400, [string]>('RFL_BAD_FILTER', '%s', 400);
export const BadRequestError = createError<'RFL_BAD_REQUEST', 400, [string]>('RFL_BAD_REQUEST', '%s', 400);

/** The JSON every /api error answers with. */
export const errorBodySchema = {
  $id: 'ApiError',
  type: 'object',
  required: ['error', 'code'],
  properties: {
    error: { type: 'string', description: 'What was wrong, for a person' },
    code: { type: 'string', description: 'Stable code, for a program (RFL_UNKNOWN_TASK, RFL_BAD_FILTER, …)' },
  },
} as const;
