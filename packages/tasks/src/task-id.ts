import { createHash, randomFillSync } from 'node:crypto';

const ID_BYTES = 20;
/** Random bytes drawn from the CSPRNG 4 KB at a time (as Node's randomUUID does), each used once. */
const pool = Buffer.alloc(ID_BYTES * 200);
let used = pool.length;

/** 160 random bits, hex: unguessable, so a task id can be handed out as a bearer of its work. */
export function newTaskId(): string {
  if (used + ID_BYTES > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const id = `tsk_${pool.toString('hex', used, used + ID_BYTES)}`;
  used += ID_BYTES;
  return id;
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
