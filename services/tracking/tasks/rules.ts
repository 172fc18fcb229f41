import { dateInvalid, taskNameEmpty, taskSortFieldInvalid } from "../errors.js";
import { sortOrder } from "../projects/rules.js";

/** The workspace list's page size: by default and at most. */
export const DEFAULT_TASKS_PER_PAGE = 50;
export const MAX_TASKS_PER_PAGE = 200;

export function taskName(raw: string): string {
  const name = raw.trim();
  if (!name) throw taskNameEmpty();
  return name;
}

export function taskSortOf(field: string, order: string): { field: string; column: string; order: "ASC" | "DESC" } {
  const f = field.trim().toLowerCase() || "name";
  if (f !== "name" && f !== "created_at") throw taskSortFieldInvalid();
  return { field: f, column: f === "name" ? "sort_name" : "created_at", order: sortOrder(order) };
}

/** A day boundary of the workspace list (YYYY-MM-DD), as the first instant of that day or of the next. */
export function dayBoundary(raw: string, field: string, next: boolean): Date | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  const d = new Date(`${text}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(d.getTime())) throw dateInvalid(field);
  if (next) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}

/** Most tasks one PATCH changes. */
export const MAX_PATCH_TASKS = 100;
