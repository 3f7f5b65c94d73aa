// The checks a hostile request's answer must pass: each returns undefined for the right refusal,
// or a sentence saying what was wrong with the answer.
import type { RawResponse } from '../helpers/raw-http.ts';

export type Check = (res: RawResponse) => string | undefined;

/** A JSON-RPC error with this code (and HTTP status when given); message matched when given. */
export const rpcError =
  (code: number, status?: number, message?: RegExp) =>
  (res: RawResponse): string | undefined => {
    if (status !== undefined && res.status !== status)
      return `HTTP ${res.status}, expected ${status}: ${res.text.slice(0, 200)}`;
    const error = res.json?.error;
    if (!error) return `no JSON-RPC error: HTTP ${res.status} ${res.text.slice(0, 200)}`;
    if (error.code !== code) return `error code ${error.code}, expected ${code}: ${error.message}`;
    if (message && !message.test(error.message)) return `message "${error.message}" does not match ${message}`;
    return undefined;
  };

/** A tool error result (isError) whose text names the problem. */
export const toolError =
  (text: RegExp) =>
  (res: RawResponse): string | undefined => {
    if (res.status !== 200) return `HTTP ${res.status}: ${res.text.slice(0, 200)}`;
    const result = res.json?.result;
    if (!result?.isError) return `not a tool error: ${res.text.slice(0, 200)}`;
    if (result.taskId) return 'a task was created';
    const said = result.content?.map((c: { text?: string }) => c.text).join(' ') ?? '';
    return text.test(said) ? undefined : `tool error "${said}" does not match ${text}`;
  };

/** An HTTP refusal before JSON-RPC: status, and a header when given. */
export const httpStatus =
  (status: number, header?: [string, RegExp]) =>
  (res: RawResponse): string | undefined => {
    if (res.status !== status) return `HTTP ${res.status}, expected ${status}: ${res.text.slice(0, 200)}`;
    if (header && !header[1].test(String(res.headers[header[0]] ?? '')))
      return `header ${header[0]}: ${String(res.headers[header[0]])}`;
    return undefined;
  };

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
