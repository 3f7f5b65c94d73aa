import { z } from 'zod';

// The import format (docs/operations.md, "Importing a site"). Field names here are the names errors will quote.

const hhmm = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$|^24:00$/, 'must be a time HH:MM');
const id = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9._:-]+$/, 'may hold only letters, digits and . _ : -');
const features = z.array(z.string().min(1).max(60)).max(50);

export const siteFileSchema = z
  .object({
    site: z.object({ name: z.string().min(1).max(200), timezone: z.string().min(1).max(100) }).strict(),
    rooms: z
      .array(
        z
          .object({
            id,
            name: z.string().min(1).max(200),
            capacity: z.number().int().min(1).max(10_000),
            features: features.default([]),
            opensAt: hhmm,
            closesAt: hhmm,
          })
          .strict(),
      )
      .min(1, 'must list at least one room')
      .max(1000),
    series: z
      .array(z.object({ id, title: z.string().min(1).max(200), customer: z.string().min(1).max(200) }).strict())
      .max(100_000)
      .default([]),
    bookings: z
      .array(
        z
          .object({
            id,
            roomId: id,
            start: z.string().max(40),
            end: z.string().max(40),
            title: z.string().min(1).max(200),
            customer: z.string().min(1).max(200),
            attendees: z.number().int().min(1).max(10_000),
            requiredFeatures: features.default([]),
            seriesId: id.nullable().optional(),
            flexMinutes: z.number().int().min(0).max(720).multipleOf(15, 'must be a multiple of 15').default(0),
            status: z.enum(['confirmed', 'cancelled', 'needs_rebooking']).default('confirmed'),
          })
          .strict(),
      )
      .max(500_000),
  })
  .strict();

export type SiteFileInput = z.input<typeof siteFileSchema>;
export type SiteFileParsed = z.output<typeof siteFileSchema>;
