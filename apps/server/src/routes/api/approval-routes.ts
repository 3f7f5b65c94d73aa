import { decideReflow, OPERATOR, type OperatorDecision } from '@reflow/reflow';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Services } from '../../services.ts';
import { NotAwaitingApprovalError, ReasonRequiredError, UnknownTaskError } from './api-errors.ts';
import { taskIdParams } from './task-routes.ts';
import { toTaskSummary } from './task-presenter.ts';

const errors = {
  400: { $ref: 'ApiError#' },
  404: { $ref: 'ApiError#' },
  409: { $ref: 'ApiError#' },
};

/**
 * APPROVAL=operator: an operator approves (the plan is applied, re-checked against the bookings as
 * they are then) or rejects (with a reason; nothing is applied) a reflow waiting for a decision.
 */
export async function approvalRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const { engine, store } = options.services;

  const decide = async (
    request: FastifyRequest<{ Params: { id: string }; Body?: { reason?: string } }>,
    decision: OperatorDecision['decision'],
  ) => {
    const reason = request.body?.reason?.trim();
    if (decision === 'rejected' && !reason) throw new ReasonRequiredError();
    const row = await engine.get(request.params.id);
    if (!row) throw new UnknownTaskError(request.params.id);
    const by = request.principal?.id ?? 'operator';
    const decided = await decideReflow(engine, store, row.id, {
      decision,
      by,
      at: new Date().toISOString(),
      ...(reason ? { reason } : {}),
    });
    if (!decided) {
      const now = await engine.get(row.id);
      // A cancel leaves held_for as it was: only a working task still held is being decided.
      const what = !now
        ? 'past its time-to-live'
        : now.status === 'working' && now.heldFor === OPERATOR
          ? 'being decided'
          : now.status;
      throw new NotAwaitingApprovalError(row.id, what);
    }
    request.log.info({ kind: row.kind, decision, by }, `reflow ${decision} by an operator`);
    // The decision is recorded; the task may have passed its TTL (and been swept) just after.
    const after = await engine.get(row.id);
    if (!after) throw new UnknownTaskError(row.id);
    return toTaskSummary(after);
  };

  const route = (summary: string) => ({
    schema: {
      tags: ['tasks'],
      summary,
      params: taskIdParams,
      body: { $ref: 'DecisionBody#' },
      response: { 200: { $ref: 'TaskSummary#' }, ...errors },
    },
  });

  app.post<{ Params: { id: string }; Body?: { reason?: string } }>(
    '/tasks/:id/approve',
    route(
      "Approve a reflow waiting for an operator's decision: its plan is applied, each move re-checked against the bookings as they are now (409 RFL_NOT_AWAITING_APPROVAL when it is not waiting)",
    ),
    async (request) => decide(request, 'approved'),
  );

  app.post<{ Params: { id: string }; Body?: { reason?: string } }>(
    '/tasks/:id/reject',
    route(
      "Reject a reflow waiting for an operator's decision, with a reason (400 RFL_REASON_REQUIRED without one): it completes with applied: false and the decision in its result",
    ),
    async (request) => decide(request, 'rejected'),
  );
}
