import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { z } from 'zod';

export const ROLES = ['client', 'operator'] as const;
export type Role = (typeof ROLES)[number];

/** Who is calling: tasks belong to `id`; `role` decides whether all tasks are visible and /api is open. */
export interface Principal {
  id: string;
  role: Role;
  /** The unauthenticated local caller of a server without tokens (or over stdio). */
  local?: true;
}

/**
 * With no tokens configured the server serves loopback only, and its one caller may use /api. Over
 * MCP it still sees only the tasks it created: tasks made under other principals stay theirs.
 */
export const LOCAL_PRINCIPAL: Principal = { id: 'anonymous', role: 'operator', local: true };

interface TokenEntry extends Principal {
  hash: Buffer;
}

const principalId = z.string().regex(/^[A-Za-z0-9._@-]{1,100}$/, 'a principal is 1–100 letters, digits or . _ @ -');
const fileSchema = z.array(
  z
    .object({
      principal: principalId,
      role: z.enum(ROLES),
      sha256: z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits'),
    })
    .strict(),
);

export const sha256 = (token: string): Buffer => createHash('sha256').update(token, 'utf8').digest();

/**
 * Bearer tokens and the principals they stand for. Only SHA-256 hashes are kept; a presented
 * token is hashed and compared against every entry in constant time, so timing tells nothing.
 */
export class TokenTable {
  readonly #entries: TokenEntry[];

  constructor(entries: TokenEntry[]) {
    const roles = new Map<string, Role>();
    const hashes = new Set<string>();
    for (const e of entries) {
      if (roles.has(e.id) && roles.get(e.id) !== e.role)
        throw new Error(`Invalid configuration: principal ${e.id} is given two roles`);
      if (hashes.has(e.hash.toString('hex')))
        throw new Error(`Invalid configuration: two principals share one token (${e.id})`);
      roles.set(e.id, e.role);
      hashes.add(e.hash.toString('hex'));
    }
    this.#entries = entries;
  }

  get enabled(): boolean {
    return this.#entries.length > 0;
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The principal a token stands for, or undefined. */
  lookup(token: string): Principal | undefined {
    const presented = sha256(token);
    let found: Principal | undefined;
    for (const entry of this.#entries) {
      if (timingSafeEqual(presented, entry.hash) && !found) found = { id: entry.id, role: entry.role };
    }
    return found;
  }
}

/** `principal:role:token`, comma-separated (the token itself may contain colons). */
export function parseTokenList(list: string): TokenEntry[] {
  return list
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean)
    .map((item, i) => {
      const [id, role = '', ...rest] = item.split(':');
      const token = rest.join(':');
      const where = `AUTH_TOKENS entry ${i + 1}`;
      if (!principalId.safeParse(id).success)
        throw new Error(`Invalid configuration: ${where}: principal must be 1–100 letters, digits or . _ @ -`);
      if (!ROLES.includes(role as Role))
        throw new Error(`Invalid configuration: ${where} (${id}): role must be client or operator, not "${role}"`);
      if (token.length < 16)
        throw new Error(`Invalid configuration: ${where} (${id}): the token must be at least 16 characters`);
      return { id, role: role as Role, hash: sha256(token) };
    });
}

/** A JSON file of `[{"principal","role","sha256"}]`: tokens are stored only as their SHA-256 hex. */
export function readTokenFile(path: string): TokenEntry[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`Invalid configuration: AUTH_TOKENS_FILE ${path}: ${(error as Error).message}`, { cause: error });
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .slice(0, 3)
      .map((i) => `[${i.path.join('.')}] ${i.message}`)
      .join('; ');
    throw new Error(`Invalid configuration: AUTH_TOKENS_FILE ${path}: ${problems}`);
  }
  return parsed.data.map((e) => ({ id: e.principal, role: e.role, hash: Buffer.from(e.sha256, 'hex') }));
}

/** Every configured token, from AUTH_TOKENS and AUTH_TOKENS_FILE together. */
export function loadTokenTable(config: { AUTH_TOKENS?: string; AUTH_TOKENS_FILE?: string }): TokenTable {
  return new TokenTable([
    ...(config.AUTH_TOKENS ? parseTokenList(config.AUTH_TOKENS) : []),
    ...(config.AUTH_TOKENS_FILE ? readTokenFile(config.AUTH_TOKENS_FILE) : []),
  ]);
}
