import { DateTime } from 'luxon';
import { z } from 'zod';
import type { StoreQueries } from '@reflow/db';
import { ReflowInputError } from './errors.ts';

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD');
/** The import format's id rule, so a room id that could never exist is refused by its shape. */
export const roomId = z
  .string()
  .min(1, 'a room id is not empty')
  .max(100, 'a room id is at most 100 characters')
  .regex(/^[A-Za-z0-9._:-]+$/, 'room ids may hold only letters, digits and . _ : -');

/** The reflow_month tool's arguments, as a client sends them. */
export const reflowArgsSchema = z
  .object({
    month: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month YYYY-MM, e.g. 2026-09')
      .describe('The month to reflow, YYYY-MM'),
    offline_rooms: z
      .array(roomId)
      .min(1, 'name at least one room')
      .max(50, 'at most 50 rooms')
      .describe('Ids of the rooms going offline'),
    from: isoDate
      .optional()
      .describe('First offline day (YYYY-MM-DD, inside the month); default: the first of the month'),
    to: isoDate.optional().describe('Last offline day, inclusive; default: the last of the month'),
    dry_run: z.boolean().optional().describe('Plan only: report the moves without writing them'),
    confirm: z
      .boolean()
      .optional()
      .describe(
        'Ask before applying: the task waits in input_required with an elicitation summarising the plan, and applies only on yes',
      ),
  })
  .strict();

export type ReflowArgs = z.infer<typeof reflowArgsSchema>;

/** The task's stored input: arguments checked against the site and completed with defaults. */
export interface ReflowInput {
  month: string;
  offlineRooms: string[];
  from: string;
  to: string;
  dryRun: boolean;
  /** Wait for approval (input_required) between the solve and the apply. Absent when not asked. */
  confirm?: true;
  /** APPROVAL=operator, for a client's reflow that applies: wait for an operator's decision before applying. */
  operatorApproval?: true;
  /** Apply exactly the plan of this completed dry run (re-checked now) instead of solving again. */
  planOf?: string;
}

/** A month's first and last days, remembered: every create asks for one of a few months. */
const boundsOfMonth = new Map<string, { first: string; last: string } | undefined>();
const REMEMBERED_MONTHS = 1_000;

function monthBounds(month: string): { first: string; last: string } | undefined {
  if (boundsOfMonth.has(month)) return boundsOfMonth.get(month);
  // Calendar dates, in UTC: the process's own zone could skip a midnight.
  const start = DateTime.fromISO(`${month}-01`, { zone: 'utc' });
  const bounds = start.isValid ? { first: start.toISODate(), last: start.endOf('month').toISODate() } : undefined;
  if (boundsOfMonth.size >= REMEMBERED_MONTHS) boundsOfMonth.clear();
  boundsOfMonth.set(month, bounds);
  return bounds;
}

/** Checks what the schema cannot: real dates, rooms that exist, a window inside the month. */
export async function resolveReflowArgs(args: ReflowArgs, store: StoreQueries): Promise<ReflowInput> {
  const bounds = monthBounds(args.month);
  if (!bounds) throw new ReflowInputError('RFL_BAD_MONTH', `month ${args.month} is not a real month`);
  const { first, last } = bounds;
  const from = args.from ?? first;
  const to = args.to ?? last;
  for (const [name, value] of [
    ['from', from],
    ['to', to],
  ] as const) {
    // A YYYY-MM-DD (the schema's shape) between the month's first and last day is a real date of it.
    const inMonth = value >= first && value <= last;
    if (!inMonth && !DateTime.fromISO(value, { zone: 'utc' }).isValid)
      throw new ReflowInputError('RFL_BAD_DATE', `${name} ${value} is not a real date`);
    if (value < first || value > last)
      throw new ReflowInputError(
        'RFL_WINDOW_OUTSIDE_MONTH',
        `${name} ${value} is outside ${args.month} (${first} to ${last})`,
      );
  }
  if (from > to) throw new ReflowInputError('RFL_FROM_AFTER_TO', `from ${from} is after to ${to}`);
  const unknown = await store.site.unknownRooms(args.offline_rooms);
  if (unknown.length) {
    const known = await store.site.roomIds();
    throw new ReflowInputError(
      'RFL_UNKNOWN_ROOM',
      `Unknown room ${unknown.join(', ')}; known rooms: ${known.join(', ') || 'none (import a site first)'}`,
    );
  }
  const offlineRooms = [...new Set(args.offline_rooms)].sort();
  if (args.confirm && args.dry_run)
    throw new ReflowInputError(
      'RFL_CONFIRM_DRY_RUN',
      'confirm asks before applying, and dry_run never applies: use one of them',
    );
  return {
    month: args.month,
    offlineRooms,
    from,
    to,
    dryRun: args.dry_run ?? false,
    ...(args.confirm ? { confirm: true as const } : {}),
  };
}
