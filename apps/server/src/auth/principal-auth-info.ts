import type { AuthInfo } from '@modelcontextprotocol/server';
import { LOCAL_PRINCIPAL, ROLES, type Principal, type Role } from './token-table.ts';

/**
 * The SDK carries the verified caller to the MCP server factory as AuthInfo: the principal as
 * `clientId`, its role as the one scope. The token itself stays in the HTTP layer.
 */
export function toAuthInfo(principal: Principal): AuthInfo {
  return { token: '', clientId: principal.id, scopes: [principal.role] };
}

/** The caller an MCP request was verified as; none (stdio, no tokens configured) is the local caller. */
export function callerOf(authInfo: AuthInfo | undefined): Principal {
  if (!authInfo) return LOCAL_PRINCIPAL;
  const role = authInfo.scopes.find((s): s is Role => (ROLES as readonly string[]).includes(s)) ?? 'client';
  return { id: authInfo.clientId, role };
}
