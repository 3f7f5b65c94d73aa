// What the demo does with the seeded month, and where the month lives on disk.
import { fileURLToPath } from 'node:url';

export const DEMO_SCENARIO = {
  month: '2026-09',
  offline_rooms: ['studio-b'],
  from: '2026-09-07',
  to: '2026-09-20',
} as const;

/** Confirmed studio-b bookings overlapping the offline window, exactly. */
export const DEMO_AFFECTED = 142;

export const DEMO_SITE_PATH: string = fileURLToPath(new URL('./riverside-2026-09.json', import.meta.url));
