// What people book a music studio for. Each activity fixes the shape of a booking (features,
// group size, length, when in the day and week it happens, how flexible it is); rooms host the
// activities their features and capacity allow, weighted by the room's profile.
import type { Rng } from './prng.ts';
import type { PartyKind } from './names.ts';

export interface Activity {
  kind: string;
  party: PartyKind;
  requires: string[];
  attendees: [number, number];
  durations: number[];
  /** Start-time band in local minutes after midnight, [from, to). */
  band: [number, number];
  /** ISO weekdays (1 = Monday) on which it is booked. */
  days: number[];
  /** Flex choices in minutes; repeats weight them. */
  flex: number[];
  weekly: boolean;
  title: (party: string, rng: Rng) => string;
}

const h = (hours: number) => hours * 60;
const WEEKDAYS = [1, 2, 3, 4, 5];
const NOT_SUNDAY = [1, 2, 3, 4, 5, 6];
const ALL_DAYS = [1, 2, 3, 4, 5, 6, 7];
const WORKS = ['single', 'EP', 'album', 'demo', 'live session'];

export const ACTIVITIES: readonly Activity[] = [
  {
    kind: 'piano-lesson',
    party: 'student',
    requires: ['piano'],
    attendees: [1, 2],
    durations: [30, 45, 60],
    band: [h(13), h(21)],
    days: NOT_SUNDAY,
    flex: [0, 15, 15, 30, 30, 60],
    weekly: true,
    title: (p) => `Piano lesson — ${p}`,
  },
  {
    kind: 'singing-lesson',
    party: 'student',
    requires: ['piano'],
    attendees: [1, 2],
    durations: [30, 45, 60],
    band: [h(12), h(21)],
    days: NOT_SUNDAY,
    flex: [0, 15, 30, 30, 60],
    weekly: true,
    title: (p) => `Singing lesson — ${p}`,
  },
  {
    kind: 'drum-lesson',
    party: 'student',
    requires: ['drums'],
    attendees: [1, 2],
    durations: [45, 60],
    band: [h(10), h(20)],
    days: NOT_SUNDAY,
    flex: [0, 15, 30, 60],
    weekly: true,
    title: (p) => `Drum lesson — ${p}`,
  },
  {
    kind: 'vocal-recording',
    party: 'artist',
    requires: ['vocal-booth'],
    attendees: [2, 3],
    durations: [120, 150, 180],
    band: [h(9), h(19)],
    days: ALL_DAYS,
    flex: [0, 30, 60, 60, 90, 120],
    weekly: false,
    title: (p, r) => `Vocal session — ${p} ${r.pick(WORKS)}`,
  },
  {
    kind: 'voice-over',
    party: 'client',
    requires: ['vocal-booth'],
    attendees: [1, 3],
    durations: [60, 90],
    band: [h(8), h(17)],
    days: WEEKDAYS,
    flex: [0, 15, 30, 30, 60],
    weekly: false,
    title: (p, r) =>
      `Voice-over — ${p} ${r.pick(['radio ad', 'TV ad', 'explainer video', 'e-learning module', 'audio guide', 'podcast ad'])}`,
  },
  {
    kind: 'podcast',
    party: 'podcast',
    requires: ['vocal-booth'],
    attendees: [2, 3],
    durations: [60, 90, 120],
    band: [h(9), h(19)],
    days: ALL_DAYS,
    flex: [30, 60, 60, 90, 120],
    weekly: true,
    title: (p) => `Podcast recording — ${p}`,
  },
  {
    kind: 'mixing',
    party: 'artist',
    requires: ['mixing-desk'],
    attendees: [1, 2],
    durations: [120, 180, 240],
    band: [h(9), h(18)],
    days: ALL_DAYS,
    flex: [0, 30, 60, 90, 120, 120],
    weekly: false,
    title: (p, r) => `Mixing — ${p} ${r.pick(WORKS)}`,
  },
  {
    kind: 'production',
    party: 'artist',
    requires: ['mixing-desk', 'piano'],
    attendees: [1, 3],
    durations: [120, 180],
    band: [h(10), h(19)],
    days: ALL_DAYS,
    flex: [0, 30, 60, 90, 120],
    weekly: false,
    title: (p) => `Production session — ${p}`,
  },
  {
    kind: 'band-rehearsal',
    party: 'band',
    requires: ['drums'],
    attendees: [3, 5],
    durations: [120, 180],
    band: [h(11), h(20) + 30],
    days: ALL_DAYS,
    flex: [0, 30, 60, 60, 90],
    weekly: true,
    title: (p) => `Band rehearsal — ${p}`,
  },
  {
    kind: 'tracking',
    party: 'band',
    requires: ['drums', 'vocal-booth'],
    attendees: [3, 6],
    durations: [240, 300, 360],
    band: [h(9), h(14)],
    days: ALL_DAYS,
    flex: [0, 0, 30, 60],
    weekly: false,
    title: (p, r) => `Tracking — ${p} ${r.pick(WORKS)}`,
  },
  {
    kind: 'piano-recording',
    party: 'artist',
    requires: ['piano', 'vocal-booth'],
    attendees: [1, 3],
    durations: [120, 180],
    band: [h(9), h(17)],
    days: ALL_DAYS,
    flex: [0, 30, 60, 90],
    weekly: false,
    title: (p) => `Piano recording — ${p}`,
  },
  {
    kind: 'ensemble-rehearsal',
    party: 'ensemble',
    requires: ['piano'],
    attendees: [4, 6],
    durations: [90, 120],
    band: [h(17) + 30, h(20) + 30],
    days: WEEKDAYS,
    flex: [0, 15, 30, 60],
    weekly: true,
    title: (p) => `Rehearsal — ${p}`,
  },
  {
    kind: 'choir',
    party: 'choir',
    requires: ['piano'],
    attendees: [8, 12],
    durations: [90, 120],
    band: [h(18), h(20) + 30],
    days: WEEKDAYS,
    flex: [0, 15, 30],
    weekly: true,
    title: (p) => `Choir practice — ${p}`,
  },
  {
    kind: 'masterclass',
    party: 'artist',
    requires: ['piano'],
    attendees: [6, 10],
    durations: [120, 180],
    band: [h(10), h(16)],
    days: [6, 7],
    flex: [0, 30, 60],
    weekly: false,
    title: (p) => `Masterclass — ${p}`,
  },
  {
    kind: 'tape-session',
    party: 'band',
    requires: ['tape-machine'],
    attendees: [2, 4],
    durations: [180, 240],
    band: [h(10), h(16)],
    days: ALL_DAYS,
    flex: [0, 30, 60],
    weekly: false,
    title: (p) => `Analog tape session — ${p}`,
  },
];

export function activity(kind: string): Activity {
  const found = ACTIVITIES.find((a) => a.kind === kind);
  if (!found) throw new Error(`unknown activity ${kind}`);
  return found;
}
