// Rooms for campuses bigger than the demo: the named demo rooms first, then rooms drawn from a
// few archetypes with generated names and a little variety in size, kit and hours.
import type { Rng } from './prng.ts';
import type { RoomSpec } from './room-spec.ts';
import { DEMO_ROOMS } from './demo-rooms.ts';

interface Archetype {
  family: 'studio' | 'rehearsal' | 'lesson' | 'podcast';
  label: string;
  capacity: [number, number];
  features: string[];
  extras: string[];
  profile: Record<string, number>;
  utilisation: number;
  series: number;
}

const ARCHETYPES: readonly Archetype[] = [
  {
    family: 'studio',
    label: 'live room',
    capacity: [8, 12],
    features: ['drums', 'mixing-desk', 'piano', 'vocal-booth'],
    extras: [],
    profile: { tracking: 4, 'piano-recording': 1, 'vocal-recording': 1, choir: 1, 'band-rehearsal': 1 },
    utilisation: 0.6,
    series: 2,
  },
  {
    family: 'studio',
    label: 'vocal room',
    capacity: [2, 4],
    features: ['mixing-desk', 'vocal-booth'],
    extras: ['piano'],
    profile: { 'vocal-recording': 3, 'voice-over': 3, podcast: 2, mixing: 1 },
    utilisation: 0.55,
    series: 2,
  },
  {
    family: 'studio',
    label: 'production room',
    capacity: [3, 4],
    features: ['mixing-desk', 'piano'],
    extras: ['vocal-booth'],
    profile: { mixing: 3, production: 3, 'piano-lesson': 1 },
    utilisation: 0.5,
    series: 2,
  },
  {
    family: 'rehearsal',
    label: '',
    capacity: [5, 8],
    features: ['drums', 'pa-system'],
    extras: ['piano'],
    profile: { 'band-rehearsal': 4, 'drum-lesson': 2, choir: 1, 'ensemble-rehearsal': 1 },
    utilisation: 0.6,
    series: 3,
  },
  {
    family: 'lesson',
    label: '',
    capacity: [2, 3],
    features: ['piano'],
    extras: ['drums'],
    profile: { 'piano-lesson': 4, 'singing-lesson': 3, 'drum-lesson': 2 },
    utilisation: 0.5,
    series: 5,
  },
  {
    family: 'podcast',
    label: '',
    capacity: [3, 5],
    features: ['mixing-desk', 'podcast-kit', 'vocal-booth'],
    extras: [],
    profile: { podcast: 4, 'voice-over': 2, mixing: 1 },
    utilisation: 0.5,
    series: 3,
  },
];

const HOURS: readonly [string, string][] = [
  ['08:00', '23:00'],
  ['09:00', '22:00'],
  ['10:00', '23:00'],
  ['09:00', '21:00'],
];

/** Next unused name of a family: Studio E, F, …; Rehearsal Room 3, …; Teaching Room 1, … */
function nameFor(family: Archetype['family'], taken: Set<string>): { id: string; name: string } {
  for (let n = 1; ; n++) {
    const letter = n <= 26 ? String.fromCharCode(96 + n) : String(n);
    const candidate =
      family === 'studio'
        ? { id: `studio-${letter}`, name: `Studio ${letter.toUpperCase()}` }
        : family === 'rehearsal'
          ? { id: `rehearsal-${n}`, name: `Rehearsal Room ${n}` }
          : family === 'lesson'
            ? { id: `teaching-${n}`, name: `Teaching Room ${n}` }
            : { id: `podcast-${n}`, name: `Podcast Booth ${n}` };
    if (!taken.has(candidate.id)) return candidate;
  }
}

export function buildRooms(count: number, rng: Rng): RoomSpec[] {
  if (!Number.isInteger(count) || count < 1) throw new Error(`rooms must be a positive integer, got ${count}`);
  const rooms: RoomSpec[] = DEMO_ROOMS.slice(0, count).map((r) => ({ ...r, features: [...r.features] }));
  const taken = new Set(rooms.map((r) => r.id));
  while (rooms.length < count) {
    const type = rng.pick(ARCHETYPES);
    const { id, name } = nameFor(type.family, taken);
    taken.add(id);
    const features = [...type.features, ...type.extras.filter(() => rng.chance(0.4))];
    const [opensAt, closesAt] = rng.pick(HOURS);
    rooms.push({
      id,
      name: type.label ? `${name} (${type.label})` : name,
      capacity: rng.int(type.capacity[0], type.capacity[1]),
      features,
      opensAt,
      closesAt,
      profile: { ...type.profile },
      utilisation: type.utilisation,
      series: type.series,
    });
  }
  return rooms;
}
