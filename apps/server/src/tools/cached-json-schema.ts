import type { z } from 'zod';

/**
 * The schema, with its JSON Schema (Standard JSON Schema's `~standard.jsonSchema`) converted once.
 * The server is built per request, and the SDK converts a called tool's input schema on every
 * tools/call (to check Mcp-Param headers) and every schema on each tools/list: for a create that was
 * a millisecond of zod's converter per request. The schemas never change, so neither does the result.
 */
export function cachedJsonSchema<S extends z.ZodType>(schema: S): S {
  const standard = schema['~standard'];
  const convert = standard.jsonSchema as Record<'input' | 'output', (options: unknown) => Record<string, unknown>>;
  const converted = new Map<string, Record<string, unknown>>();
  const once =
    (io: 'input' | 'output') =>
    (options: unknown): Record<string, unknown> => {
      const key = `${io} ${JSON.stringify(options ?? null)}`;
      let json = converted.get(key);
      if (!json) {
        // Frozen deeply: every request's server shares it, and none may change it for the others.
        json = deepFreeze(convert[io](options));
        converted.set(key, json);
      }
      return json;
    };
  Object.defineProperty(schema, '~standard', {
    value: { ...standard, jsonSchema: { input: once('input'), output: once('output') } },
    configurable: true,
  });
  return schema;
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
