import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { rooms } from './rooms.ts';
import { series } from './series.ts';

export const BOOKING_STATUSES = ['confirmed', 'cancelled', 'needs_rebooking'] as const;
export type BookingStatus = (typeof BOOKING_STATUSES)[number];

export const bookings = sqliteTable(
  'bookings',
  {
    id: text('id').primaryKey(),
    roomId: text('room_id')
      .notNull()
      .references(() => rooms.id),
    /** UTC instants in epoch milliseconds. */
    startAt: integer('start_at').notNull(),
    endAt: integer('end_at').notNull(),
    title: text('title').notNull(),
    customer: text('customer').notNull(),
    attendees: integer('attendees').notNull(),
    requiredFeatures: text('required_features', { mode: 'json' }).$type<string[]>().notNull(),
    seriesId: text('series_id').references(() => series.id),
    flexMinutes: integer('flex_minutes').notNull().default(0),
    status: text('status', { enum: BOOKING_STATUSES }).notNull().default('confirmed'),
    /** Bumped on every change, so an apply can tell that a booking moved under it. */
    version: integer('version').notNull().default(1),
  },
  (t) => [index('bookings_room_time').on(t.roomId, t.startAt), index('bookings_time').on(t.startAt)],
);
