import { TASK_STATUSES } from '@reflow/db';

// JSON schemas shared by the /api routes; fastify validates with them and @fastify/swagger documents them.

const isoTime = { type: 'string', format: 'date-time' } as const;
const nullableIso = { type: ['string', 'null'], format: 'date-time' } as const;

export const taskSummarySchema = {
  $id: 'TaskSummary',
  type: 'object',
  required: ['taskId', 'kind', 'owner', 'status', 'createdAt', 'lastUpdatedAt', 'attempt', 'maxAttempts'],
  properties: {
    taskId: { type: 'string' },
    kind: { type: 'string' },
    owner: { type: 'string' },
    status: { type: 'string', enum: [...TASK_STATUSES] },
    statusMessage: { type: ['string', 'null'] },
    createdAt: isoTime,
    lastUpdatedAt: isoTime,
    startedAt: nullableIso,
    finishedAt: nullableIso,
    expiresAt: isoTime,
    attempt: { type: 'integer' },
    maxAttempts: { type: 'integer' },
    pollIntervalMs: { type: 'integer' },
    awaitingApproval: {
      type: 'boolean',
      description: "Waiting for an operator's decision (APPROVAL=operator): approve or reject it",
    },
    input: {},
  },
} as const;

const countsSchema = {
  type: 'object',
  properties: Object.fromEntries(TASK_STATUSES.map((s) => [s, { type: 'integer' }])),
} as const;

export const taskListSchema = {
  $id: 'TaskList',
  type: 'object',
  required: ['tasks', 'counts', 'nextCursor', 'pollIntervalMs'],
  properties: {
    tasks: { type: 'array', items: { $ref: 'TaskSummary#' } },
    counts: { ...countsSchema, description: 'Live tasks per status under the kind/since filters' },
    awaitingApproval: {
      type: 'integer',
      description: "Live tasks waiting for an operator's decision under the kind/since filters",
    },
    nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` for the next page; null on the last page' },
    pollIntervalMs: {
      type: 'integer',
      description: "The server's poll interval now: how often a live view should ask again",
    },
  },
} as const;

const moveSchema = {
  type: 'object',
  properties: {
    bookingId: { type: 'string' },
    title: { type: 'string' },
    fromRoom: { type: 'string' },
    toRoom: { type: 'string' },
    fromStart: { type: 'string' },
    toStart: { type: 'string' },
    shiftMinutes: { type: 'integer' },
  },
} as const;

const unresolvedSchema = {
  type: 'object',
  properties: {
    bookingId: { type: 'string' },
    title: { type: 'string' },
    code: { type: 'string' },
    reason: { type: 'string' },
  },
} as const;

export const taskDetailSchema = {
  $id: 'TaskDetail',
  type: 'object',
  required: ['task', 'events', 'timings'],
  properties: {
    task: { $ref: 'TaskSummary#' },
    error: {
      type: ['object', 'null'],
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
    },
    timings: {
      type: 'object',
      properties: {
        queuedMs: { type: ['integer', 'null'], description: 'created → first claimed' },
        runMs: { type: ['integer', 'null'], description: 'first claimed → finished' },
        totalMs: { type: ['integer', 'null'], description: 'created → finished' },
      },
    },
    events: {
      type: 'array',
      description: 'Progress history from task_events, oldest first',
      items: {
        type: 'object',
        properties: {
          at: isoTime,
          attempt: { type: 'integer' },
          kind: { type: 'string' },
          message: { type: 'string' },
          data: {},
        },
      },
    },
    attempts: {
      type: 'array',
      description: 'Each attempt, oldest first, with the node that ran it (its id as /api/nodes lists it)',
      items: {
        type: 'object',
        properties: {
          attempt: { type: 'integer' },
          node: { type: ['string', 'null'], description: 'The claimant: the id of the node that ran the attempt' },
          startedAt: isoTime,
        },
      },
    },
    approval: {
      type: ['object', 'null'],
      description:
        "Set while the task (a reflow, or a client's revert under APPROVAL=operator) waits for an operator's decision: POST /api/tasks/{id}/approve or /reject",
      properties: { since: isoTime, message: { type: 'string' } },
    },
    reflow: {
      type: ['object', 'null'],
      description: 'For reflow_month: the request, and once applied its moves and unresolved bookings with reasons',
      properties: {
        month: { type: 'string' },
        offlineRooms: { type: 'array', items: { type: 'string' } },
        window: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } } },
        dryRun: { type: 'boolean' },
        audit: {
          type: 'object',
          description:
            'Rows the reflow_moves / reflow_unresolved audit holds for this task (0 for a dry run or before it completes)',
          properties: { moves: { type: 'integer' }, unresolved: { type: 'integer' } },
        },
        summary: {
          type: ['object', 'null'],
          properties: {
            moved: { type: 'integer' },
            unresolved: { type: 'integer' },
            affected: { type: 'integer' },
            applied: { type: 'boolean' },
            totalShiftMinutes: { type: 'integer' },
            movedBound: { type: 'integer' },
            optimal: { type: 'object', properties: { moved: { type: 'boolean' }, shift: { type: 'boolean' } } },
          },
        },
        moves: { type: 'array', items: moveSchema },
        unresolvedBookings: { type: 'array', items: unresolvedSchema },
        awaitingApproval: {
          type: ['object', 'null'],
          description:
            "Set while the reflow waits for an operator's decision: summary, moves and unresolved bookings are then the proposed plan (not applied yet)",
          properties: { since: isoTime, message: { type: 'string' } },
        },
        operatorDecision: {
          type: ['object', 'null'],
          description: 'Who approved or rejected the plan, when and why (APPROVAL=operator)',
          properties: {
            decision: { type: 'string', enum: ['approved', 'rejected'] },
            by: { type: 'string' },
            at: { type: 'string' },
            reason: { type: 'string' },
          },
        },
      },
    },
  },
} as const;

/** A POST whose body is optional: none at all, or an object with exactly these fields. */
export const optionalBody = <P extends Record<string, unknown>>(properties: P) =>
  ({ type: ['object', 'null'], additionalProperties: false, properties }) as const;

export const decisionBodySchema = {
  $id: 'DecisionBody',
  type: ['object', 'null'],
  additionalProperties: false,
  properties: {
    reason: {
      type: 'string',
      maxLength: 1000,
      description: 'Why: required to reject (told to the client in its result), optional to approve',
    },
  },
} as const;

export const sharedSchemas = [taskSummarySchema, taskListSchema, taskDetailSchema, decisionBodySchema];
