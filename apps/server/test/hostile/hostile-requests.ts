// Generates the hostile-input test's requests: malformed JSON, wrong `jsonrpc`, unknown methods,
// wrong types, huge and deeply nested bodies, bad headers, invalid arguments, guessed and foreign
// task ids. Seeded (fast-check), so a failure reproduces. Each case carries its own check of the answer.
import { argumentCases } from './hostile-argument-cases.ts';
import { framer, type HostileCase, type HostileContext } from './hostile-framing.ts';
import { protocolCases } from './hostile-protocol-cases.ts';

export type { HostileCase, HostileContext };

export function generateHostileRequests(ctx: HostileContext): HostileCase[] {
  const f = framer(ctx);
  protocolCases(f);
  argumentCases(f);
  return f.cases;
}
