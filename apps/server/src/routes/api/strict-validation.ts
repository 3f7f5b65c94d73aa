import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';
import { Ajv, type AnySchema } from 'ajv';

// Fastify's default Ajv coerces types and drops unknown fields before a handler sees the body:
// `"dry_run": null` became false (an applying reflow) and `"by": "mallory"` vanished. Here a body
// or a path parameter is taken exactly as sent: a wrong type or an unknown field is a 400 naming
// it, before any state check. Only the query string is converted, since every query value is text
// (`limit=20` is the number 20); its unknown parameters are refused by a hook of their own.

// Our schemas are not checked against JSON Schema's meta-schema at each start (compiling it cost
// each Ajv about 60 ms of a start-up): they are constants, and Ajv's strict mode still refuses an
// unknown keyword or a malformed type when a route's schema compiles.
const exact = {
  coerceTypes: false,
  removeAdditional: false,
  useDefaults: false,
  allErrors: false,
  validateSchema: false,
} as const;
const queryText = {
  coerceTypes: true,
  removeAdditional: false,
  useDefaults: true,
  allErrors: false,
  validateSchema: false,
} as const;

/** Validates /api requests strictly; `shared` are the schemas routes refer to by `$ref`. */
export function useStrictValidation(app: FastifyInstance, shared: AnySchema[]): void {
  const strict = new Ajv(exact);
  const query = new Ajv(queryText);
  for (const schema of shared) {
    strict.addSchema(schema);
    query.addSchema(schema);
  }
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'querystring' ? query : strict).compile(schema as AnySchema),
  );
  app.setSchemaErrorFormatter((errors, dataVar) => new Error(describeProblem(errors, dataVar)));
}

/** One sentence naming the field: `body has an unknown field "by"`, `body/dry_run must be boolean`. */
function describeProblem(errors: FastifySchemaValidationError[], dataVar: string): string {
  const first = errors[0];
  const where = `${dataVar}${first.instancePath}`;
  const params = first.params as { additionalProperty?: string };
  if (first.keyword === 'additionalProperties' && params.additionalProperty !== undefined)
    return `${where} has an unknown field "${params.additionalProperty}"`;
  return `${where} ${first.message ?? 'is not valid'}`;
}
