import { REFLOW_KIND, type ReflowResult } from '@reflow/reflow';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { NothingAppliedError, UnknownTaskError } from './api-errors.ts';
import { taskIdParams } from './task-routes.ts';
import { changesCsv, changesIcs } from './changes-export.ts';

/** Tell the customers: what a completed, applied reflow moved, as CSV and as iCalendar. */
export async function exportRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const { engine, store } = options.services;
  const appliedResult = async (id: string): Promise<ReflowResult> => {
    const row = await engine.get(id);
    if (!row) throw new UnknownTaskError(id);
    const result =
      row.kind === REFLOW_KIND && row.status === 'completed' && row.result
        ? (JSON.parse(row.result).structuredContent as ReflowResult)
        : undefined;
    if (!result?.applied) throw new NothingAppliedError(id);
    return result;
  };
  const site = async () => (await store.site.getSite()) ?? { name: 'studio', timezone: 'UTC' };
  const errors = { 404: { $ref: 'ApiError#' }, 409: { $ref: 'ApiError#' } };

  app.get<{ Params: { id: string } }>(
    '/tasks/:id/changes.csv',
    {
      schema: {
        tags: ['reflows'],
        summary:
          "What a completed reflow changed, one CSV row per moved or unresolved booking: customer, title, old room and time, new room and time (site's time zone) or the reason it needs rebooking",
        params: taskIdParams,
        produces: ['text/csv'],
        response: { 200: { type: 'string' }, ...errors },
      },
    },
    async (request, reply) => {
      const result = await appliedResult(request.params.id);
      const csv = await changesCsv(result, store, (await site()).timezone);
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${request.params.id}-changes.csv"`)
        .send(csv);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/tasks/:id/changes.ics',
    {
      schema: {
        tags: ['reflows'],
        summary: 'The bookings a completed reflow moved, at their new rooms and times, as an iCalendar file',
        params: taskIdParams,
        produces: ['text/calendar'],
        response: { 200: { type: 'string' }, ...errors },
      },
    },
    async (request, reply) => {
      const result = await appliedResult(request.params.id);
      const ics = await changesIcs(request.params.id, result, store, (await site()).name);
      return reply
        .type('text/calendar; charset=utf-8')
        .header('content-disposition', `attachment; filename="${request.params.id}-changes.ics"`)
        .send(ics);
    },
  );
}
