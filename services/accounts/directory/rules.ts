import { searchTermMissing } from "../errors.js";

/** The search term: `q`, else `search` (the specification names no parameter), trimmed; none is 400. */
export function searchTerm(req: { q: string; search: string }): string {
  const term = (req.q.trim() || req.search.trim());
  if (term === "") throw searchTermMissing();
  return term;
}

/**
 * The `role_id` of an organization role. The specification gives role ids without their table;
 * these are this installation's system roles (the same ids as roles/catalog.ts).
 */
export const ROLE_IDS: Readonly<Record<string, number>> = { admin: 1, user: 2, projectlead: 3, teamlead: 4 };

export const roleId = (role: string): number => ROLE_IDS[role] ?? ROLE_IDS.user;

/** Hours a day from the stored minutes; null when unset. */
export const workingHours = (minutes: number | null): number | undefined => (minutes === null ? undefined : minutes / 60);
