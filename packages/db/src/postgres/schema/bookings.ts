import { index, integer, json, pgTable, text } from 'drizzle-orm/pg-core';
import { BOOKING_STATUSES } from '../../schema/bookings.ts';
import { epochMs } from './epoch-ms.ts';
import { rooms } from './rooms.ts';
import { series } from './series.ts';

export const bookings = pgTable(
  'bookings',
  {
    id: text('id').primaryKey(),
    roomId: text('room_id')
      .notNull()
      .references(() => rooms.id),
    startAt: epochMs('start_at').notNull(),
    endAt: epochMs('end_at').notNull(),
    title: text('title').notNull(),
    customer: text('customer').notNull(),
    attendees: integer('attendees').notNull(),
    requiredFeatures: json('required_features').$type<string[]>().notNull(),
    seriesId: text('series_id').references(() => series.id),
    flexMinutes: integer('flex_minutes').notNull().default(0),
    status: text('status', { enum: BOOKING_STATUSES }).notNull().default('confirmed'),
    /** Bumped on every change, so an apply can tell that a booking moved under it. */
    version: integer('version').notNull().default(1),
  },
  (t) => [index('bookings_room_time').on(t.roomId, t.startAt), index('bookings_time').on(t.startAt)],
);
