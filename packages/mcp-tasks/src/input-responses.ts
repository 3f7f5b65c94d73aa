import { z } from 'zod';

// The answers tasks/update may carry for a task's pending inputRequests, by the request's method
// (SEP-2322 InputResponse: the bare result, never a {method, result} envelope).
const elicitResult = z
  .object({
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  })
  .passthrough();
const samplingResult = z
  .object({ role: z.enum(['user', 'assistant']), content: z.unknown(), model: z.string() })
  .passthrough();
const rootsResult = z.object({ roots: z.array(z.object({ uri: z.string() }).passthrough()) }).passthrough();
const RESULT_BY_METHOD: Partial<Record<string, z.ZodType>> = {
  'elicitation/create': elicitResult,
  'sampling/createMessage': samplingResult,
  'roots/list': rootsResult,
};

/**
 * What is wrong with the answers to keys the task is waiting on, or undefined when nothing is.
 * Keys it is not waiting on are not judged: they are ignored, whatever they hold. `dropped` are the
 * keys the SDK already refused as not being bare result objects.
 */
export function invalidInputResponses(
  pending: Record<string, unknown>,
  responses: Record<string, unknown>,
  dropped: readonly string[],
): string | undefined {
  const problems: string[] = [];
  for (const key of dropped)
    if (Object.hasOwn(pending, key)) problems.push(`inputResponses.${key}: must be the bare result object`);
  for (const [key, answer] of Object.entries(responses)) {
    if (!Object.hasOwn(pending, key)) continue;
    const method = (pending[key] as { method?: string } | undefined)?.method ?? '';
    const schema = RESULT_BY_METHOD[method];
    const parsed = schema?.safeParse(answer);
    if (parsed && !parsed.success) {
      const issue = parsed.error.issues[0];
      problems.push(
        `inputResponses.${key}${issue.path.length ? '.' + issue.path.join('.') : ''}: ${issue.message} (answer to ${method})`,
      );
    }
  }
  return problems.length ? problems.join('; ') : undefined;
}
