// The import format (docs/operations.md, "Importing a site"), as types. Optional fields default as the importer does:
// seriesId none, flexMinutes 0, requiredFeatures [], status "confirmed".

export interface SiteInfo {
  name: string;
  /** IANA zone; opening hours and local dates are read in it. */
  timezone: string;
}

export interface SiteRoom {
  id: string;
  name: string;
  capacity: number;
  features: string[];
  /** Wall-clock "HH:mm" in the site's zone. */
  opensAt: string;
  closesAt: string;
}

export interface SiteSeries {
  id: string;
  title: string;
  customer: string;
}

export type BookingStatus = 'confirmed' | 'cancelled';

export interface SiteBooking {
  id: string;
  roomId: string;
  /** ISO 8601 with the local offset, e.g. 2026-09-08T10:00:00+01:00. */
  start: string;
  end: string;
  title: string;
  customer: string;
  attendees: number;
  requiredFeatures?: string[];
  seriesId?: string;
  flexMinutes?: number;
  status?: BookingStatus;
}

export interface SiteFile {
  site: SiteInfo;
  rooms: SiteRoom[];
  series: SiteSeries[];
  bookings: SiteBooking[];
}
