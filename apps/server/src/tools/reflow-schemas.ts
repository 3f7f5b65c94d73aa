// reflow_month's wire schemas as the MCP tools publish them, built on the use case's own schemas.
import { reflowArgsSchema, reflowResultSchema } from '@reflow/reflow';
import { z } from 'zod';
import { cachedJsonSchema } from './cached-json-schema.ts';

export const backgroundHandleSchema = z
  .object({
    taskId: z.string(),
    status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
    statusMessage: z.string().optional(),
    pollIntervalMs: z.number().int().optional(),
    ttlMs: z.number().int().nullable(),
  })
  .describe('Present only when called with background:true: the task to follow with reflow_status');

/** reflow_month's arguments: the use case's, plus `background` for hosts that speak no task protocol. */
export const reflowToolArgsSchema = cachedJsonSchema(
  reflowArgsSchema.extend({
    background: z
      .boolean()
      .optional()
      .describe(
        'Start the reflow and answer at once with its task id instead of waiting; follow it with reflow_status',
      ),
  }),
);

/**
 * The full result, or (background:true) only `background`. The published JSON Schema lists every
 * field as optional so either answer validates in any client; the server checks the either-or.
 */
export const reflowToolOutputSchema = cachedJsonSchema(
  reflowResultSchema
    .partial()
    .extend({ background: backgroundHandleSchema.optional() })
    .refine((v) => (v.background ? Object.keys(v).length === 1 : reflowResultSchema.safeParse(v).success), {
      message: 'either the full reflow result or only the background task handle',
    }),
);

/** What reflow_status answers: the task, and when it completed, the reflow result. */
export const taskStatusSchema = z.object({
  taskId: z.string(),
  status: z.enum(['working', 'input_required', 'completed', 'failed', 'cancelled']),
  statusMessage: z.string().optional(),
  createdAt: z.string(),
  lastUpdatedAt: z.string(),
  pollIntervalMs: z.number().int().optional(),
  result: reflowResultSchema.optional().describe('When completed: the same result a waiting reflow_month call returns'),
  error: z.object({ code: z.number().int(), message: z.string() }).optional().describe('When failed'),
});
