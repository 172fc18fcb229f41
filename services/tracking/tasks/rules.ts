import { badRequest } from "../../../lib/errors.js";

/** Longest task name the service stores. */
export const MAX_TASK_NAME = 255;
/** The workspace list's page size: by default and at most. */
export const DEFAULT_TASKS_PER_PAGE = 50;
export const MAX_TASKS_PER_PAGE = 200;

export function taskName(raw: string): string {
  const name = raw.trim();
  if (!name) throw badRequest("Task name must not be empty");
  if ([...name].length > MAX_TASK_NAME) throw badRequest(`Task name must be at most ${MAX_TASK_NAME} characters`);
  return name;
}

/** `active` of the workspace list: true (default), false or both. */
export function taskActiveFilter(raw: string): boolean | undefined {
  const v = raw.trim().toLowerCase() || "true";
  if (v === "both") return undefined;
  if (v === "true") return true;
  if (v === "false") return false;
  throw badRequest("Invalid value for active: expected true, false or both");
}

export function taskSortOf(field: string, order: string): { field: string; column: string; order: "ASC" | "DESC" } {
  const f = field.trim().toLowerCase() || "name";
  if (f !== "name" && f !== "created_at") throw badRequest("Invalid sort_field: expected name or created_at");
  const o = order.trim().toUpperCase() || "ASC";
  if (o !== "ASC" && o !== "DESC") throw badRequest("Invalid sort_order: expected ASC or DESC");
  return { field: f, column: f === "name" ? "sort_name" : "created_at", order: o };
}

/** A day boundary of the workspace list (YYYY-MM-DD), as the first instant of that day or of the next. */
export function dayBoundary(raw: string, field: string, next: boolean): Date | undefined {
  const text = raw.trim();
  if (!text) return undefined;
  const d = new Date(`${text}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text) || Number.isNaN(d.getTime())) throw badRequest(`${field} must be a date in the form YYYY-MM-DD`);
  if (next) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}
