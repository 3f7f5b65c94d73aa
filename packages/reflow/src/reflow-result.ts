import { z } from 'zod';

/** An operator's decision on work that waited for one (a reflow's plan, a client's revert). */
export const operatorDecisionSchema = z.object({
  decision: z.enum(['approved', 'rejected']),
  by: z.string(),
  at: z.string(),
  reason: z.string().optional(),
});

/** structuredContent of a reflow_month result: the tool's outputSchema. */
export const reflowResultSchema = z.object({
  moved: z.number().int().describe('Bookings given a new room or time'),
  unresolved: z
    .number()
    .int()
    .describe('Affected bookings that could not move (marked needs_rebooking unless dry_run)'),
  affected: z.number().int().describe('Confirmed bookings in the offline rooms during the window'),
  applied: z
    .boolean()
    .describe('Whether the moves were written (false for dry_run, or when the approval was declined)'),
  approval: z
    .enum(['accepted', 'declined'])
    .optional()
    .describe('The answer to the approval question, when confirm was asked'),
  operatorDecision: operatorDecisionSchema
    .optional()
    .describe('Under APPROVAL=operator: who approved or rejected the plan, when, and why'),
  month: z.string(),
  offlineRooms: z.array(z.string()),
  window: z.object({ from: z.string(), to: z.string() }).describe('Offline days, inclusive'),
  totalShiftMinutes: z.number().int(),
  movedBound: z.number().int().describe('Proven upper bound on how many could move'),
  optimal: z
    .object({ moved: z.boolean(), shift: z.boolean(), series: z.boolean() })
    .describe('Whether each objective level is proven optimal: moved count, then total shift, then series split'),
  moves: z.array(
    z.object({
      bookingId: z.string(),
      title: z.string(),
      fromRoom: z.string(),
      toRoom: z.string(),
      fromStart: z.string(),
      toStart: z.string(),
      shiftMinutes: z.number().int(),
    }),
  ),
  unresolvedBookings: z.array(
    z.object({ bookingId: z.string(), title: z.string(), code: z.string(), reason: z.string() }),
  ),
});

export type ReflowResult = z.infer<typeof reflowResultSchema>;

/** The CallToolResult: a short text for people and models, the structured result for programs. */
export function toCallToolResult(result: ReflowResult) {
  const verb = result.applied ? 'Moved' : 'Would move';
  const lines = [
    ...(result.approval === 'declined' ? ['Not applied: the plan was declined; nothing was moved.'] : []),
    ...(result.operatorDecision
      ? [
          `${result.operatorDecision.decision === 'approved' ? 'Approved' : 'Rejected; nothing was moved'} by operator ${result.operatorDecision.by} at ${result.operatorDecision.at}${result.operatorDecision.reason ? `: ${result.operatorDecision.reason}` : ''}.`,
        ]
      : []),
    `${verb} ${result.moved} of ${result.affected} bookings out of ${result.offlineRooms.join(', ')} (${result.window.from} to ${result.window.to}); ${unresolvedPhrase(result)}.`,
    `Total shift ${result.totalShiftMinutes} min; moved count ${result.optimal.moved ? 'proven optimal' : `at most ${result.movedBound}`}.`,
    ...result.unresolvedBookings.slice(0, 10).map((u) => `- ${u.bookingId} (${u.title}): ${u.reason}`),
  ];
  return { content: [{ type: 'text' as const, text: lines.join('\n') }], structuredContent: result };
}

/**
 * What became of the bookings that did not move: those needing rebooking, and apart from them those
 * left alone because they changed meanwhile (another apply of the same plan got there first, say).
 */
export function unresolvedPhrase(r: Pick<ReflowResult, 'unresolved' | 'unresolvedBookings'>): string {
  const changed = r.unresolvedBookings.filter((u) => u.code === 'changed').length;
  const rebook = `${r.unresolved - changed} need rebooking`;
  return changed === 0 ? rebook : `${rebook}; ${changed} changed meanwhile and left as they are`;
}
