// The task as tasks/get shows it (SEP-2663, flat) and the three answers a tools/call can give.

export interface WireTask {
  taskId: string;
  status: 'working' | 'input_required' | 'completed' | 'failed' | 'cancelled';
  statusMessage?: string;
  createdAt: string;
  lastUpdatedAt: string;
  ttlMs: number | null;
  pollIntervalMs?: number;
  result?: CallResult;
  error?: { code: number; message: string; data?: unknown };
  inputRequests?: Record<string, unknown>;
}

export interface CallResult {
  resultType?: string;
  content?: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** What tools/call answers: a task handle, a request for input, or the result itself. */
export type CallAnswer =
  | ({ resultType: 'task' } & WireTask)
  | { resultType: 'input_required'; inputRequests?: Record<string, unknown>; requestState?: string }
  | ({ resultType?: 'complete' } & CallResult);

export const isSettled = (status: string) => status === 'completed' || status === 'failed' || status === 'cancelled';
