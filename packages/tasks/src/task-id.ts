import { createHash, randomBytes } from 'node:crypto';

/** 160 random bits, hex: unguessable, so a task id can be handed out as a bearer of its work. */
export function newTaskId(): string {
  return `tsk_${randomBytes(20).toString('hex')}`;
}

/** Stable JSON (sorted keys) so equal inputs give equal keys whatever their key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonical(item)).join(',')}]`;
  if (value && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .filter((k) => (value as Record<string, unknown>)[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The identity of a request: same kind and input give the same key. */
export function dedupeKey(kind: string, input: unknown): string {
  return createHash('sha256').update(kind).update('\0').update(canonical(input)).digest('hex');
}
