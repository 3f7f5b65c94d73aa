import type { StoreQueries } from '@reflow/db';
import type { Applied } from './apply-plan.ts';

// What a revert compares against: the version each booking had right after the reflow wrote it.
// Any later write (a new end, a new title, another move) bumps the version, so a revert can tell a
// booking edited since from one still as the reflow left it, whatever the edit changed.

/** The `_meta` key of an applied reflow's result that holds the versions it wrote. */
export const APPLIED_META = 'io.github.studio-reflow/applied';

/** The versions the apply left, read back in its own transaction (after its writes). */
export async function appliedVersions(applied: Applied, tx: StoreQueries): Promise<Record<string, number>> {
  const written = [
    ...applied.moves.map((m) => m.bookingId),
    // Those marked needs_rebooking were written too; one reported `changed` was left as it was.
    ...applied.unresolved.filter((u) => u.code !== 'changed').map((u) => u.bookingId),
  ];
  const rows = await tx.bookings.getForUpdate(written);
  return Object.fromEntries(rows.map((b) => [b.id, b.version]));
}

export function appliedMeta(versions: Record<string, number>) {
  return { [APPLIED_META]: { versions } };
}

/** The versions an applied reflow's stored result recorded; undefined for one applied before they were. */
export function readAppliedVersions(stored: { _meta?: Record<string, unknown> }): Record<string, number> | undefined {
  const meta = stored._meta?.[APPLIED_META] as { versions?: unknown } | undefined;
  const versions = meta?.versions;
  if (!versions || typeof versions !== 'object') return undefined;
  return Object.fromEntries(
    Object.entries(versions).filter((entry): entry is [string, number] => Number.isInteger(entry[1])),
  );
}
