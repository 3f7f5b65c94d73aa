// Turn drafts into the import format: instants with local offsets, bookings sorted by start and
// numbered bk-00001…, series and customers numbered by first appearance so ids read in
// calendar order. Optional fields are written only when they differ from their default.
import type { SiteBooking, SiteFile, SiteInfo, SiteSeries } from './site-file.ts';
import type { RoomSpec } from './room-spec.ts';
import type { GenContext } from './gen-context.ts';
import { toSiteRoom } from './room-spec.ts';
import { localDateTime } from './local-time.ts';

const pad = (n: number, width: number) => String(n).padStart(width, '0');

export function finalizeSite(ctx: GenContext, site: SiteInfo, rooms: RoomSpec[]): SiteFile {
  const roomOrder = new Map(rooms.map((r, i) => [r.id, i]));
  const timed = ctx.drafts.map((d) => ({
    d,
    start: localDateTime(d.date, d.start, ctx.zone),
    end: localDateTime(d.date, d.end, ctx.zone),
  }));
  timed.sort(
    (x, y) =>
      x.start.toMillis() - y.start.toMillis() ||
      roomOrder.get(x.d.roomId)! - roomOrder.get(y.d.roomId)! ||
      x.end.toMillis() - y.end.toMillis(),
  );

  const seriesIds = new Map<number, string>();
  const customerIds = new Map<string, string>();
  const series: SiteSeries[] = [];
  const customerOf = (raw: string) => {
    if (!customerIds.has(raw)) customerIds.set(raw, `cust-${pad(customerIds.size + 1, 3)}`);
    return customerIds.get(raw)!;
  };

  const bookings = timed.map(({ d, start, end }, i): SiteBooking => {
    const booking: SiteBooking = {
      id: `bk-${pad(i + 1, 5)}`,
      roomId: d.roomId,
      start: start.toISO({ suppressMilliseconds: true })!,
      end: end.toISO({ suppressMilliseconds: true })!,
      title: d.title,
      customer: customerOf(d.customer),
      attendees: d.attendees,
    };
    if (d.requiredFeatures.length > 0) booking.requiredFeatures = [...d.requiredFeatures].sort();
    if (d.seriesKey !== undefined) {
      if (!seriesIds.has(d.seriesKey)) {
        const s = ctx.series[d.seriesKey];
        seriesIds.set(d.seriesKey, `ser-${pad(seriesIds.size + 1, 3)}`);
        series.push({ id: seriesIds.get(d.seriesKey)!, title: s.title, customer: customerOf(s.customer) });
      }
      booking.seriesId = seriesIds.get(d.seriesKey)!;
    }
    if (d.flexMinutes > 0) booking.flexMinutes = d.flexMinutes;
    if (d.status !== 'confirmed') booking.status = d.status;
    return booking;
  });

  return { site: { ...site }, rooms: rooms.map((room) => toSiteRoom(room)), series, bookings };
}
