import type { FastifyInstance } from 'fastify';
import type { Services } from '../../services.ts';

const isoTime = { type: 'string', format: 'date-time' } as const;

/** The cluster as the store knows it: every live node (a lapsed one is reaped by the next sweep). */
export const nodeListSchema = {
  $id: 'NodeList',
  type: 'object',
  required: ['answeredBy', 'nodes'],
  properties: {
    answeredBy: { type: 'string', description: 'The id of the node that answered this request' },
    nodes: {
      type: 'array',
      description: 'Server processes sharing the store, oldest first; with SQLite, the processes on this host',
      items: {
        type: 'object',
        required: ['id', 'host', 'pid', 'workers', 'startedAt', 'heartbeatAt', 'running'],
        properties: {
          id: { type: 'string', description: 'Node id; the claimant recorded on each attempt it ran' },
          host: { type: 'string' },
          pid: { type: 'integer' },
          workers: { type: 'integer', description: 'Worker threads it solves on (0: accept-only)' },
          startedAt: isoTime,
          heartbeatAt: { ...isoTime, description: "Its last heartbeat, by the store's clock" },
          running: {
            type: 'array',
            items: { type: 'string' },
            description: 'Task ids it was running at its last heartbeat',
          },
        },
      },
    },
  },
} as const;

/** GET /api/nodes: which nodes share the store, what each runs, and which one answered. */
export async function nodeRoutes(app: FastifyInstance, options: { services: Services }): Promise<void> {
  const { engine, store } = options.services;
  app.get(
    '/nodes',
    {
      schema: {
        tags: ['nodes'],
        summary: 'Live nodes sharing the store: host, pid, workers, heartbeat and the tasks each runs',
        response: { 200: { $ref: 'NodeList#' } },
      },
    },
    async () => {
      const nodes = await store.nodes.list();
      return {
        answeredBy: engine.instanceId,
        nodes: nodes
          .sort((a, b) => a.startedAt - b.startedAt || a.id.localeCompare(b.id))
          .map((node) => ({
            id: node.id,
            host: node.host,
            pid: node.pid,
            workers: node.workers,
            startedAt: new Date(node.startedAt).toISOString(),
            heartbeatAt: new Date(node.heartbeatAt).toISOString(),
            running: node.running,
          })),
      };
    },
  );
}
