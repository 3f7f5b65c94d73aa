import { listBookings, listRooms, ReflowInputError } from '@reflow/reflow';
import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';
import { BadFilterError } from './api-errors.ts';

const roomSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    capacity: { type: 'integer' },
    features: { type: 'array', items: { type: 'string' } },
    opensAt: { type: 'string' },
    closesAt: { type: 'string' },
  },
} as const;

const bookingSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    roomId: { type: 'string' },
    start: { type: 'string', description: 'Local ISO time with offset' },
    end: { type: 'string' },
    title: { type: 'string' },
    customer: { type: 'string' },
    attendees: { type: 'integer' },
    requiredFeatures: { type: 'array', items: { type: 'string' } },
    seriesId: { type: ['string', 'null'] },
    flexMinutes: { type: 'integer' },
    status: { type: 'string', enum: ['confirmed', 'cancelled', 'needs_rebooking'] },
  },
} as const;

/** The site as it is now: rooms, and a month of bookings (optionally one room). */
export async function siteRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const { store } = options.services;

  app.get(
    '/rooms',
    {
      schema: {
        tags: ['site'],
        summary: 'The site and its rooms',
        response: {
          200: {
            type: 'object',
            properties: {
              site: {
                type: ['object', 'null'],
                properties: { name: { type: 'string' }, timezone: { type: 'string' } },
              },
              rooms: { type: 'array', items: roomSchema },
            },
          },
        },
      },
    },
    async () => listRooms(store),
  );

  app.get<{ Querystring: { month: string; room?: string } }>(
    '/bookings',
    {
      schema: {
        tags: ['site'],
        summary: 'Bookings of a month (any status), optionally in one room',
        querystring: {
          type: 'object',
          required: ['month'],
          properties: {
            month: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'YYYY-MM' },
            room: { type: 'string', minLength: 1, maxLength: 100, description: 'Room id' },
          },
        },
        response: {
          200: { type: 'object', properties: { bookings: { type: 'array', items: bookingSchema } } },
          400: { $ref: 'ApiError#' },
        },
      },
    },
    async (request) => {
      try {
        return await listBookings(request.query, store);
      } catch (error) {
        if (error instanceof ReflowInputError) throw new BadFilterError(`room: ${error.message}`);
        throw error;
      }
    },
  );
}
