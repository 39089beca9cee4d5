/** Plan tiers, lowest first. Some options are restricted by tier (spec "Resources", "Limits"). */
export const ROLES = ['trial', 'basic', 'premium', 'pro', 'admin'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: string): value is Role {
  return (ROLES as readonly string[]).includes(value);
}

/** Plans that may add an attack narrative to their scan reports (spec "Attack narrative"). */
const NARRATIVE_ROLES: readonly Role[] = ['premium', 'pro', 'admin'];

export function mayHaveNarrative(role: Role): boolean {
  return NARRATIVE_ROLES.includes(role);
}

/** Plans that may create Unmanaged (internal network) scans (spec "Internal network scan"). */
const UNMANAGED_ROLES: readonly Role[] = ['pro', 'admin'];

export function mayScanUnmanaged(role: Role): boolean {
  return UNMANAGED_ROLES.includes(role);
}
