import { DateTime } from 'luxon';
import type { Plan } from '@reflow/solver';

// The solver knows only instants and writes them as UTC ISO (2026-09-07T09:30Z). People read the
// site's wall clock, so reasons are rewritten into it ("Mon 7 Sep 10:30") before anyone sees them.
const INSTANT = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?Z)/g;

function localiseReason(reason: string, zone: string): string {
  return reason.replace(INSTANT, (iso) => {
    const dt = DateTime.fromISO(iso, { zone: 'utc' }).setZone(zone);
    return dt.isValid ? dt.toFormat('ccc d LLL HH:mm') : iso;
  });
}

/** The plan with its unresolved reasons in the site's wall clock: done once, before apply and result. */
export function localisePlan(plan: Plan, zone: string): Plan {
  return { ...plan, unresolved: plan.unresolved.map((u) => ({ ...u, reason: localiseReason(u.reason, zone) })) };
}
