import {
  REFLOW_KIND,
  reflowArgsSchema,
  ReflowInputError,
  resolveReflowArgs,
  type ReflowInput,
  type ReflowResult,
} from '@reflow/reflow';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { BadRequestError, NotADryRunError, UnknownTaskError } from './api-errors.ts';
import { optionalBody } from './api-schemas.ts';
import { toTaskSummary } from './task-presenter.ts';
import { taskIdParams } from './task-routes.ts';
import { startRevert } from '../../tools/start-revert.ts';

interface StartBody {
  month: string;
  offline_rooms: string[];
  from?: string;
  to?: string;
  dry_run?: boolean;
}

/**
 * The console starts reflows: the operator's own task, through the same engine and handler as an
 * MCP call (so it shows live in the list like any other). An operator's reflow never waits for approval.
 */
export async function reflowRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const { engine, store } = options.services;
  app.post<{ Body: StartBody }>(
    '/reflows',
    {
      schema: {
        tags: ['reflows'],
        summary: "Start a reflow as the calling operator (reflow_month's arguments); answers 202 with the new task",
        body: {
          type: 'object',
          required: ['month', 'offline_rooms'],
          // Not confirm: the console cannot answer a confirm question (the operator's preview is a dry run).
          additionalProperties: false,
          properties: {
            month: { type: 'string', description: 'YYYY-MM' },
            offline_rooms: { type: 'array', items: { type: 'string' }, description: 'Ids of the rooms going offline' },
            from: { type: 'string', description: 'First offline day, YYYY-MM-DD (default: the first of the month)' },
            to: { type: 'string', description: 'Last offline day, inclusive (default: the last of the month)' },
            dry_run: { type: 'boolean', description: 'Plan only: report the moves without writing them' },
          },
        },
        response: { 202: { $ref: 'TaskSummary#' }, 400: { $ref: 'ApiError#' } },
      },
    },
    async (request, reply) => {
      const args = reflowArgsSchema.safeParse(request.body);
      if (!args.success)
        throw new BadRequestError(args.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
      let input;
      try {
        input = await resolveReflowArgs(args.data, store);
      } catch (error) {
        if (error instanceof ReflowInputError)
          throw Object.assign(new Error(error.message), { statusCode: 400, code: error.code });
        throw error;
      }
      const owner = request.principal?.id ?? 'operator';
      const { task } = await engine.create({ owner, kind: REFLOW_KIND, input });
      request.log.info({ taskId: task.id, owner }, 'reflow started from the operator API');
      return reply.code(202).send(toTaskSummary(task));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/tasks/:id/apply-plan',
    {
      schema: {
        tags: ['reflows'],
        summary:
          "Apply exactly the plan a completed dry run previewed, instead of solving again: a new reflow_month task (the operator's own) re-checks every move at apply time and reports, never overwrites, what changed meanwhile (409 RFL_NOT_A_DRY_RUN otherwise)",
        params: taskIdParams,
        body: optionalBody({}),
        response: { 202: { $ref: 'TaskSummary#' }, 404: { $ref: 'ApiError#' }, 409: { $ref: 'ApiError#' } },
      },
    },
    async (request, reply) => {
      const row = await engine.get(request.params.id);
      if (!row) throw new UnknownTaskError(request.params.id);
      const input = row.input as ReflowInput;
      const result =
        row.kind === REFLOW_KIND && row.status === 'completed' && row.result
          ? (JSON.parse(row.result).structuredContent as ReflowResult | undefined)
          : undefined;
      if (!result || !input.dryRun || result.applied) throw new NotADryRunError(row.id);
      const { dryRun: _dryRun, confirm: _confirm, operatorApproval: _approval, ...asked } = input;
      const owner = request.principal?.id ?? 'operator';
      const { task } = await engine.create({
        owner,
        kind: REFLOW_KIND,
        input: { ...asked, dryRun: false, planOf: row.id } satisfies ReflowInput,
      });
      request.log.info({ taskId: task.id, planOf: row.id }, 'previewed plan applied from the operator API');
      return reply.code(202).send(toTaskSummary(task));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/tasks/:id/revert',
    {
      schema: {
        tags: ['reflows'],
        summary:
          'Undo a completed reflow that applied its moves: starts a task that puts each moved booking back (and confirms again those marked needs_rebooking) where still possible; once per reflow (409 RFL_NOT_REVERTIBLE, RFL_ALREADY_REVERTED)',
        params: taskIdParams,
        body: optionalBody({}),
        response: { 202: { $ref: 'TaskSummary#' }, 404: { $ref: 'ApiError#' }, 409: { $ref: 'ApiError#' } },
      },
    },
    async (request, reply) => {
      const caller = request.principal ?? { id: 'operator', role: 'operator' as const };
      const task = await startRevert(options.services, request.params.id, caller);
      request.log.info({ revertTaskId: task.id }, 'revert started from the operator API');
      return reply.code(202).send(toTaskSummary(task));
    },
  );
}
