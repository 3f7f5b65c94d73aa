// Every invariant a generated site promises, as a list of problems (empty = valid). Shared by
// the demo and generator tests so both hold the same bar.
import { DateTime } from 'luxon';
import type { SiteFile } from '../site-file.ts';

const FLEX = new Set([0, 15, 30, 60, 90, 120]);

export function checkSite(site: SiteFile): string[] {
  const problems: string[] = [];
  const zone = site.site.timezone;
  const rooms = new Map(site.rooms.map((r) => [r.id, r]));
  const series = new Map(site.series.map((s) => [s.id, s]));
  if (rooms.size !== site.rooms.length) problems.push('room ids are not unique');
  if (series.size !== site.series.length) problems.push('series ids are not unique');
  if (new Set(site.bookings.map((b) => b.id)).size !== site.bookings.length)
    problems.push('booking ids are not unique');

  const seriesShape = new Map<string, string>();
  const confirmedByRoom = new Map<string, { id: string; start: number; end: number }[]>();
  let previousStart = -Infinity;
  site.bookings.forEach((b, i) => {
    const at = `${b.id}:`;
    if (b.id !== `bk-${String(i + 1).padStart(5, '0')}`) problems.push(`${at} id out of sequence`);
    const start = DateTime.fromISO(b.start, { setZone: true });
    const end = DateTime.fromISO(b.end, { setZone: true });
    if (!start.isValid || !end.isValid) return void problems.push(`${at} bad ISO time`);
    const localStart = start.setZone(zone);
    const localEnd = end.setZone(zone);
    // The written offset must be the zone's own offset at that instant.
    if (start.offset !== localStart.offset || end.offset !== localEnd.offset)
      problems.push(`${at} offset is not local`);
    if (start.toMillis() < previousStart) problems.push(`${at} not sorted by start`);
    previousStart = start.toMillis();
    const room = rooms.get(b.roomId);
    if (!room) return void problems.push(`${at} unknown room ${b.roomId}`);
    if (end <= start) problems.push(`${at} ends before it starts`);
    if (localStart.toISODate() !== localEnd.toISODate()) problems.push(`${at} spans two local days`);
    if (localStart.toFormat('HH:mm') < room.opensAt || localEnd.toFormat('HH:mm') > room.closesAt) {
      problems.push(`${at} outside ${room.id}'s hours`);
    }
    if (b.attendees < 1 || b.attendees > room.capacity) problems.push(`${at} ${b.attendees} attendees in ${room.id}`);
    for (const f of b.requiredFeatures ?? [])
      if (!room.features.includes(f)) problems.push(`${at} ${room.id} lacks ${f}`);
    if (!FLEX.has(b.flexMinutes ?? 0)) problems.push(`${at} flexMinutes ${b.flexMinutes}`);
    if (!/^cust-\d{3,}$/.test(b.customer)) problems.push(`${at} customer ${b.customer}`);
    if (b.seriesId !== undefined) {
      const s = series.get(b.seriesId);
      if (!s) problems.push(`${at} unknown series ${b.seriesId}`);
      else if (s.customer !== b.customer || s.title !== b.title) problems.push(`${at} differs from its series`);
      const shape = `${b.roomId} ${localStart.toFormat('ccc HH:mm')}-${localEnd.toFormat('HH:mm')}`;
      if ((seriesShape.get(b.seriesId) ?? shape) !== shape) problems.push(`${at} breaks ${b.seriesId}'s weekly slot`);
      seriesShape.set(b.seriesId, shape);
    }
    if ((b.status ?? 'confirmed') === 'confirmed') {
      const list = confirmedByRoom.get(b.roomId) ?? [];
      list.push({ id: b.id, start: start.toMillis(), end: end.toMillis() });
      confirmedByRoom.set(b.roomId, list);
    } else if (b.status !== 'cancelled') problems.push(`${at} status ${b.status}`);
  });
  for (const s of site.series) if (!seriesShape.has(s.id)) problems.push(`${s.id}: has no bookings`);

  for (const list of confirmedByRoom.values()) {
    list.sort((x, y) => x.start - y.start);
    for (let i = 1; i < list.length; i++) {
      if (list[i].start < list[i - 1].end) problems.push(`${list[i - 1].id} overlaps ${list[i].id}`);
    }
  }
  return problems;
}
