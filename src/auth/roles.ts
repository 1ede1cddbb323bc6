import { AppError, ErrorCode } from '../errors.js';

/** Roles from most to least privileged; each includes everything the ones after it may do. */
export const ROLES = ['admin', 'editor', 'agent', 'reader'] as const;

/** What an API key may do: admin > editor > agent > reader. */
export type Role = (typeof ROLES)[number];

const RANK: Record<Role, number> = { admin: 3, editor: 2, agent: 1, reader: 0 };

/** True when `role` is one of the known roles. */
export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Parses a role name case-insensitively (CLI `--role`, GraphQL enum), failing with BAD_USER_INPUT. */
export function parseRole(value: string | undefined, field = 'role'): Role {
  const v = (value ?? '').trim().toLowerCase();
  if (!isRole(v))
    throw new AppError(
      ErrorCode.BAD_USER_INPUT,
      `${field}: expected one of ${ROLES.join(', ')} (got "${value ?? ''}")`,
      { field },
    );
  return v;
}

/** True when `have` is at least `need` in the role order. */
export function roleAtLeast(have: Role, need: Role): boolean {
  return RANK[have] >= RANK[need];
}

/** Who sent a request: an API key, or the local user while authentication is off. */
export interface Principal {
  kind: 'key' | 'local';
  /** The key's id; null for the local principal. */
  keyId: string | null;
  name: string;
  role: Role;
  /** The spaces the key is bound to; null: every space (admin keys may be, and the local principal is). */
  spaces: readonly string[] | null;
}

/** The principal of every request while no key exists (loopback only): it may do everything. */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({
  kind: 'local',
  keyId: null,
  name: 'local (authentication off)',
  role: 'admin',
  spaces: null,
});

/** Throws FORBIDDEN unless the principal's role reaches `need`; `what` names the operation in the message. */
export function requireRole(principal: Principal, need: Role, what: string): void {
  if (roleAtLeast(principal.role, need)) return;
  throw new AppError(
    ErrorCode.FORBIDDEN,
    `${what} needs the ${need} role; this key (${principal.name}) is ${principal.role}`,
    {
      requiredRole: need,
      role: principal.role,
    },
  );
}
