/**
 * From when a new rate applies to time entries: the modes a rate change may name. One list for the
 * whole API: the accounts service's workspaces and organization users, and the tracking service's
 * projects and project users. Each service answers an unknown mode in
 * its own family's words (its errors.ts).
 */
export const RATE_CHANGE_MODES = ["start-today", "override-current", "override-all"] as const;

export const isRateChangeMode = (raw: string): boolean => (RATE_CHANGE_MODES as readonly string[]).includes(raw);
