import { isTerminal, type TaskEngine } from '@reflow/tasks';
import { OPERATOR } from '@reflow/reflow';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { TaskAlreadyFinishedError, UnknownTaskError } from './api-errors.ts';
import { encodeCursor, parseTaskListQuery, taskListQuerySchema, type TaskListQuery } from './task-list-params.ts';
import { toTaskDetail, toTaskSummary } from './task-presenter.ts';
import { optionalBody } from './api-schemas.ts';

export const taskIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', minLength: 1, maxLength: 200, description: 'Task id (tsk_…)' } },
} as const;
const errors = { 400: { $ref: 'ApiError#' }, 404: { $ref: 'ApiError#' } };

/** The operator's view of every task, whoever created it: list, detail, cancel. */
export async function taskRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const { engine, store } = options.services;
  const liveTask = async (engine: TaskEngine, id: string) => {
    const row = await engine.get(id);
    if (!row) throw new UnknownTaskError(id);
    return row;
  };

  app.get<{ Querystring: TaskListQuery }>(
    '/tasks',
    {
      schema: {
        tags: ['tasks'],
        summary: 'List tasks, newest first, with counts per status',
        querystring: taskListQuerySchema,
        response: { 200: { $ref: 'TaskList#' }, 400: errors[400] },
      },
    },
    async (request) => {
      const { filter, after } = parseTaskListQuery(request.query);
      const counted = { kind: filter.kind, createdSince: filter.createdSince };
      const [page, counts, awaitingApproval, pollIntervalMs] = await Promise.all([
        store.taskList.page(filter, request.query.limit, after),
        store.taskList.countsByStatus(counted),
        store.taskList.countAwaiting(counted, OPERATOR),
        engine.pollIntervalMs(),
      ]);
      const last = page.rows.at(-1);
      return {
        tasks: page.rows.map((row) => toTaskSummary(row)),
        counts,
        awaitingApproval,
        nextCursor: page.more && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
        pollIntervalMs,
      };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/tasks/:id',
    {
      schema: {
        tags: ['tasks'],
        summary: 'One task: error, timings, progress history and, for a reflow, its moves and unresolved bookings',
        params: taskIdParams,
        response: { 200: { $ref: 'TaskDetail#' }, ...errors },
      },
    },
    async (request) => {
      const row = await liveTask(engine, request.params.id);
      return toTaskDetail(row, await store.tasks.events(row.id), store);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/tasks/:id/cancel',
    {
      schema: {
        tags: ['tasks'],
        summary: 'Cancel a working task; whatever its running attempt computed is discarded',
        params: taskIdParams,
        body: optionalBody({}),
        response: { 200: { $ref: 'TaskSummary#' }, ...errors, 409: { $ref: 'ApiError#' } },
      },
    },
    async (request) => {
      const row = await liveTask(engine, request.params.id);
      const log = request.log.child({ taskId: row.id });
      // The history records which operator cancelled (the local one when no tokens are configured).
      if (isTerminal(row.status) || !(await engine.cancel(row.id, request.principal?.id ?? 'operator'))) {
        const now = (await engine.get(row.id)) ?? row;
        throw new TaskAlreadyFinishedError(row.id, now.status);
      }
      log.info({ kind: row.kind }, 'task cancelled by an operator');
      return toTaskSummary((await engine.get(row.id))!);
    },
  );
}
