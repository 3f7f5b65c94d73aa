// Raw JSON-RPC the way a 2026-07-28 client sends it, with the client capabilities chosen per call
// (the approval gate depends on whether the client declared elicitation).
import { rpc, TASKS } from './test-server.ts';

/** A client that declares the Tasks extension and can answer elicitations. */
export const ELICITING_CLIENT = { elicitation: {}, extensions: { [TASKS]: {} } };

/** tools/call, tasks/get, tasks/update … as `rpc` sends them, declaring `capabilities` (an eliciting client by default). */
export function call(
  url: string,
  method: string,
  params: Record<string, unknown>,
  capabilities: Record<string, unknown> = ELICITING_CLIENT,
): Promise<{ status: number; body: any }> {
  return rpc(url, method, params, { capabilities });
}
