import type { SiteData, Store } from '@reflow/db';
import { ReflowInputError } from './errors.ts';
import { isValidZone, parseInstant, toLocalDate, atLocalTime } from './local-time.ts';
import { siteFileSchema, type SiteFileParsed } from './site-file-schema.ts';

export interface ImportSummary {
  site: string;
  rooms: number;
  series: number;
  bookings: number;
}

/** Names the record a zod path points into: `bookings[12] (bk-00013).start`. */
function describePath(file: unknown, path: PropertyKey[]): string {
  let text = '';
  let node: unknown = file;
  for (const key of path) {
    node = (node as Record<PropertyKey, unknown> | undefined)?.[key as string];
    if (typeof key === 'number') {
      const recordId = (node as { id?: unknown } | undefined)?.id;
      text += `[${key}]${typeof recordId === 'string' ? ` (${recordId})` : ''}`;
    } else text += text ? `.${String(key)}` : String(key);
  }
  return text || 'file';
}

/** Validates a whole site file, naming the record and field of the first problems; writes nothing. */
export function validateSiteFile(raw: unknown): SiteData {
  const parsed = siteFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.slice(0, 5).map((i) => `${describePath(raw, i.path)}: ${i.message}`);
    throw new ReflowInputError('RFL_BAD_IMPORT', `Invalid site file: ${problems.join('; ')}`);
  }
  return toSiteData(parsed.data);
}

function toSiteData(file: SiteFileParsed): SiteData {
  const fail = (where: string, message: string): never => {
    throw new ReflowInputError('RFL_BAD_IMPORT', `Invalid site file: ${where}: ${message}`);
  };
  const zone = file.site.timezone;
  if (!isValidZone(zone)) fail('site.timezone', `${zone} is not an IANA time zone`);
  const rooms = new Map<string, SiteFileParsed['rooms'][number]>();
  file.rooms.forEach((r, i) => {
    if (rooms.has(r.id)) fail(`rooms[${i}] (${r.id}).id`, 'duplicate room id');
    if (r.closesAt <= r.opensAt) fail(`rooms[${i}] (${r.id}).closesAt`, `must be after opensAt ${r.opensAt}`);
    rooms.set(r.id, r);
  });
  const series = new Set<string>();
  file.series.forEach((s, i) => {
    if (series.has(s.id)) fail(`series[${i}] (${s.id}).id`, 'duplicate series id');
    series.add(s.id);
  });
  const seen = new Set<string>();
  const bookings = file.bookings.map((b, i) => {
    const where = `bookings[${i}] (${b.id})`;
    if (seen.has(b.id)) fail(`${where}.id`, 'duplicate booking id');
    seen.add(b.id);
    const room = rooms.get(b.roomId) ?? fail(`${where}.roomId`, `unknown room ${b.roomId}`);
    if (b.seriesId && !series.has(b.seriesId)) fail(`${where}.seriesId`, `unknown series ${b.seriesId}`);
    const startAt = parseInstant(b.start) ?? fail(`${where}.start`, 'must be an ISO 8601 date-time with an offset');
    const endAt = parseInstant(b.end) ?? fail(`${where}.end`, 'must be an ISO 8601 date-time with an offset');
    if (endAt <= startAt) fail(`${where}.end`, 'must be after start');
    const day = toLocalDate(startAt, zone);
    if (startAt < atLocalTime(day, room.opensAt, zone) || endAt > atLocalTime(day, room.closesAt, zone))
      fail(`${where}.start`, `outside ${room.id}'s opening hours ${room.opensAt}–${room.closesAt} (${zone})`);
    return {
      id: b.id,
      roomId: b.roomId,
      startAt,
      endAt,
      title: b.title,
      customer: b.customer,
      attendees: b.attendees,
      requiredFeatures: b.requiredFeatures,
      seriesId: b.seriesId ?? null,
      flexMinutes: b.flexMinutes,
      status: b.status,
    };
  });
  assertNoOverlaps(bookings, fail);
  return { site: file.site, rooms: [...rooms.values()], series: file.series, bookings };
}

function assertNoOverlaps(bookings: SiteData['bookings'], fail: (where: string, message: string) => never): void {
  const confirmed = bookings
    .filter((b) => b.status === 'confirmed')
    .sort((a, b) => a.roomId.localeCompare(b.roomId) || a.startAt - b.startAt);
  for (let i = 1; i < confirmed.length; i++) {
    const [a, b] = [confirmed[i - 1], confirmed[i]];
    if (a.roomId === b.roomId && b.startAt < a.endAt)
      fail(`bookings (${b.id}).start`, `overlaps confirmed booking ${a.id} in ${b.roomId}`);
  }
}

/** Imports a site file in one transaction. Refuses to mix into existing bookings unless `replace`. */
export async function importSite(
  raw: unknown,
  store: Store,
  options: { replace?: boolean } = {},
): Promise<ImportSummary> {
  const data = validateSiteFile(raw);
  await store.transaction(async (tx) => {
    // Another import committing meanwhile is seen here (a site now there), not missed.
    await tx.site.lockForImport();
    if (!options.replace && ((await tx.site.getSite()) || (await tx.site.bookingCount()) > 0))
      throw new ReflowInputError('RFL_SITE_EXISTS', 'The database already holds a site; pass --replace to replace it');
    await tx.site.writeSite(data, options.replace ?? false);
  });
  return { site: data.site.name, rooms: data.rooms.length, series: data.series.length, bookings: data.bookings.length };
}
