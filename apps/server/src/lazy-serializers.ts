// Fastify builds a response serializer (fast-json-stringify) for every route and status with a
// schema when the route is registered: about 100 ms of each start-up for /api's schemas. This
// factory hands Fastify the same compiler, run when a route first answers with that status, so a
// process pays only for what it serves (a test server, a node restarted after a crash).
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type Factory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<Factory>>;

/** Fastify's `schemaController.compilersFactory.buildSerializer`, compiling each serializer on first use. */
export function lazySerializerFactory(): Factory {
  const eager = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = eager(externalSchemas, options);
    return (route) => {
      let serialize: Serializer | undefined;
      return (doc: unknown) => (serialize ??= compile(route))(doc);
    };
  };
}
