// The key's role, read once when the pages open: controls a role may not use are not shown. The server enforces the
// same rules on every request (src/graphql/fieldRoles.ts), whatever the page shows.
import { createContext, useContext } from 'react';
import { ViewerRoleDocument, type Role } from '../shared/generated/graphql';
import { gql } from '../shared/graphql';

/** What the page lets this key do: editors create, edit and import; admins also delete and read History. */
export interface Rights {
  role: Role | 'UNKNOWN';
  canEdit: boolean;
  isAdmin: boolean;
}

/** The rights of a role; an unknown one may do nothing. */
export function rightsOf(role: Role | 'UNKNOWN'): Rights {
  return { role, canEdit: role === 'ADMIN' || role === 'EDITOR', isAdmin: role === 'ADMIN' };
}

/** The key's role, or UNKNOWN when the server would not say (the page then offers no edits). */
export async function loadRights(): Promise<Rights> {
  try {
    return rightsOf((await gql(ViewerRoleDocument)).viewer.role);
  } catch {
    return rightsOf('UNKNOWN');
  }
}

export const RightsContext = createContext<Rights>(rightsOf('UNKNOWN'));

/** The rights of this tab's key. */
export function useRights(): Rights {
  return useContext(RightsContext);
}
