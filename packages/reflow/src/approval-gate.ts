import type { Plan } from '@reflow/solver';
import type { ReflowInput } from './reflow-args.ts';
import { humanRange } from './local-time.ts';
import type { Snapshot } from './snapshot.ts';

// The approval gate of `reflow_month {confirm: true}`: after the solve, the task parks in
// input_required with one elicitation summarising the plan, and applies only on an explicit yes.

/** What a reflow keeps in the database while it waits: the plan, and what applying it re-checks. */
export interface AwaitingApproval {
  plan: Plan;
  kept: Pick<Snapshot, 'timezone' | 'versions' | 'bookings' | 'generation'>;
}

/** The handler's name for its one question (the wire key adds the round: `r1-apply`). */
export const APPROVAL = 'apply';

export function approvalQuestion(input: ReflowInput, plan: Plan): string {
  const moves = `${plan.moves.length} move${plan.moves.length === 1 ? '' : 's'}`;
  const unresolved = `${plan.unresolved.length} booking${plan.unresolved.length === 1 ? '' : 's'} unresolved`;
  return `Apply ${moves}, ${unresolved}? (reflow ${input.offlineRooms.join(', ')}, ${humanRange(input.from, input.to)})`;
}

/** A form-mode elicitation (SEP-2663 `inputRequests` entry) asking to apply the plan. */
export function approvalRequest(input: ReflowInput, plan: Plan) {
  return {
    method: 'elicitation/create',
    params: {
      mode: 'form',
      message: approvalQuestion(input, plan),
      requestedSchema: {
        type: 'object',
        properties: {
          apply: {
            type: 'boolean',
            title: 'Apply the moves',
            description: 'Yes writes every move; no leaves the month as it is',
          },
        },
        required: ['apply'],
      },
    },
  };
}

/** Only what applying needs: the bookings the plan touches, with the versions it saw. */
export function keepForApproval(plan: Plan, snapshot: Snapshot): AwaitingApproval {
  return { plan, kept: keepPlanned(plan, snapshot) };
}

/** The part of a snapshot (or of an earlier kept part) that the plan's bookings need. */
export function keepPlanned(plan: Plan, snapshot: AwaitingApproval['kept']): AwaitingApproval['kept'] {
  const ids = [...plan.moves.map((m) => m.bookingId), ...plan.unresolved.map((u) => u.bookingId)];
  return {
    timezone: snapshot.timezone,
    generation: snapshot.generation,
    versions: Object.fromEntries(ids.map((id) => [id, snapshot.versions[id]])),
    bookings: Object.fromEntries(ids.map((id) => [id, snapshot.bookings[id]])),
  };
}

/** Yes only for an accepted form whose `apply` is true; decline, cancel or anything else is no. */
export function approved(answer: unknown): boolean {
  const a = answer as { action?: unknown; content?: { apply?: unknown } } | undefined;
  return a?.action === 'accept' && a.content?.apply === true;
}
