// A room as the generator sees it: the public room plus how busy it should be and with what.
import type { SiteRoom } from './site-file.ts';

export interface RoomSpec extends SiteRoom {
  /** Relative weight of each activity kind booked here (kinds absent are never booked here). */
  profile: Record<string, number>;
  /** Share of opening minutes to fill (before the density knob). */
  utilisation: number;
  /** Weekly series to place in the month. */
  series: number;
}

export function toSiteRoom(spec: RoomSpec): SiteRoom {
  const { id, name, capacity, features, opensAt, closesAt } = spec;
  return { id, name, capacity, features: [...features].sort(), opensAt, closesAt };
}
