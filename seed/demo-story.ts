// The hand-written part of the demo month: the three kinds of booking that cannot all move when
// Studio B goes offline 7–20 Sep, made certain rather than left to chance.
//  (a) tape sessions: only Studio B has the tape machine;
//  (b) a five-piece piano recording: Studio A is the only other room that fits, and it is booked;
//  (c) three audiobook narrations compete for one 90-minute gap in Studio C (a hold keeps it free).
import type { FixedBooking, Hold } from './place-fixed.ts';

const VB = ['vocal-booth'];

export const DEMO_FIXED: readonly FixedBooking[] = [
  // (a) no suitable room
  { roomId: 'studio-b', date: '2026-09-02', from: '10:00', to: '14:00', title: 'Analog tape session — Oxbow',
    party: 'Oxbow', attendees: 4, requiredFeatures: ['tape-machine'], flexMinutes: 30 },
  { roomId: 'studio-b', date: '2026-09-08', from: '14:00', to: '18:00', title: 'Analog tape session — The Marrows',
    party: 'The Marrows', attendees: 4, requiredFeatures: ['tape-machine'], flexMinutes: 60 },
  { roomId: 'studio-b', date: '2026-09-18', from: '10:00', to: '14:00', title: 'Tape transfer — Low Orbit archive reels',
    party: 'Low Orbit', attendees: 2, requiredFeatures: ['tape-machine'], flexMinutes: 30 },
  { roomId: 'studio-b', date: '2026-09-24', from: '10:00', to: '13:00', title: 'Tape mixdown — The Marrows',
    party: 'The Marrows', attendees: 2, requiredFeatures: ['mixing-desk', 'tape-machine'] },

  // (b) every suitable room busy
  { roomId: 'studio-b', date: '2026-09-12', from: '11:00', to: '14:00', title: 'Piano trio recording — Aurora Trio',
    party: 'Aurora Trio', attendees: 5, requiredFeatures: ['piano', 'vocal-booth'], flexMinutes: 30 },
  { roomId: 'studio-a', date: '2026-09-12', from: '09:00', to: '18:00', title: 'Tracking — Kestrel Drive album (day 3)',
    party: 'Kestrel Drive', attendees: 5, requiredFeatures: ['drums', 'vocal-booth'] },

  // (c) competing for the same free slot: 11:00–12:30 in Studio C is the only vocal booth free
  { roomId: 'studio-b', date: '2026-09-17', from: '10:00', to: '11:30', title: 'Audiobook narration — Harbour Press (ch. 1–4)',
    party: 'Harbour Press', attendees: 2, requiredFeatures: VB, flexMinutes: 60 },
  { roomId: 'studio-b', date: '2026-09-17', from: '11:30', to: '13:00', title: 'Audiobook narration — Harbour Press (ch. 5–8)',
    party: 'Harbour Press', attendees: 2, requiredFeatures: VB, flexMinutes: 60 },
  { roomId: 'studio-b', date: '2026-09-17', from: '13:00', to: '14:30', title: 'Audiobook narration — Harbour Press (ch. 9–12)',
    party: 'Harbour Press', attendees: 2, requiredFeatures: VB, flexMinutes: 120 },
  { roomId: 'studio-a', date: '2026-09-17', from: '08:00', to: '17:00', title: 'Tracking — The Vales album (day 1)',
    party: 'The Vales', attendees: 5, requiredFeatures: ['drums', 'vocal-booth'] },
  { roomId: 'studio-e', date: '2026-09-17', from: '09:00', to: '17:00', title: 'Songwriting day — Ellis Marr',
    party: 'Ellis Marr', attendees: 3, requiredFeatures: ['piano'] },
  { roomId: 'podcast-suite', date: '2026-09-17', from: '09:00', to: '13:00', title: 'Podcast recording — The Long Table (live taping)',
    party: 'The Long Table', attendees: 4, requiredFeatures: VB, flexMinutes: 0 },
  { roomId: 'podcast-suite', date: '2026-09-17', from: '13:00', to: '17:00', title: 'Mixing — Nova Lane EP',
    party: 'Nova Lane', attendees: 2, requiredFeatures: ['mixing-desk'], flexMinutes: 0 },
  { roomId: 'studio-c', date: '2026-09-17', from: '09:00', to: '11:00', title: 'Voice-over — Northwind Games game dialogue',
    party: 'Northwind Games', attendees: 2, requiredFeatures: VB },
  { roomId: 'studio-c', date: '2026-09-17', from: '12:30', to: '17:00', title: 'Vocal session — Priya Shah album',
    party: 'Priya Shah', attendees: 2, requiredFeatures: VB, flexMinutes: 30 },
];

export const DEMO_HOLDS: readonly Hold[] = [
  { roomId: 'studio-c', date: '2026-09-17', from: '11:00', to: '12:30' },
];
