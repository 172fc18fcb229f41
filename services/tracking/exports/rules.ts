import { exportNothingSelected, exportObjectsInvalid, exportObjectUnknown } from "../errors.js";
import type { ExportKind, ExportState } from "./store.js";

/**
 * What a workspace export may name: the real workspace ZIP's files without `.json` (the tasks
 * and project users of each project under their folders' names), and our time entries (the JSON
 * per year and the detailed CSV). The real service's audit log is not exported (the accounts
 * service keeps it; GET /api/v9/audit_logs answers it).
 */
export const WORKSPACE_OBJECTS = [
  "clients",
  "projects",
  "tags",
  "tasks",
  "projects_users",
  "workspace_users",
  "user_groups",
  "alerts",
  "tracking_reminders",
  "scheduled_reports",
  "workspace_settings",
  "time_entries",
] as const;
export type WorkspaceObject = (typeof WORKSPACE_OBJECTS)[number];

/** A user's own export: `profile` (profile and preferences) and `timeline` (their time entries). */
export const USER_OBJECTS = ["profile", "timeline"] as const;
export type UserObject = (typeof USER_OBJECTS)[number];

/** The body's names (a JSON array of strings), checked and kept once each in the order given. */
export function workspaceObjects(body: unknown): WorkspaceObject[] {
  if (!Array.isArray(body) || body.some((name) => typeof name !== "string")) throw exportObjectsInvalid();
  const out: WorkspaceObject[] = [];
  for (const raw of body as string[]) {
    const name = raw.trim();
    if (!(WORKSPACE_OBJECTS as readonly string[]).includes(name)) throw exportObjectUnknown(raw, WORKSPACE_OBJECTS);
    if (!out.includes(name as WorkspaceObject)) out.push(name as WorkspaceObject);
  }
  if (out.length === 0) throw exportNothingSelected();
  return out;
}

/** The reference's export.payload as the names of what to export. */
export function userObjects(payload: { profile: boolean; timeline: boolean }): UserObject[] {
  const out = USER_OBJECTS.filter((name) => payload[name]);
  if (out.length === 0) throw exportNothingSelected();
  return out;
}

/** What makes two unfinished exports one too many: the same requester, kind and workspace. */
export const activeKey = (kind: ExportKind, requesterId: bigint, workspace: bigint | null) => `${kind}:${requesterId}:${workspace ?? ""}`;

/** The states a request moves through; only `done` has a file. */
export const UNFINISHED: readonly ExportState[] = ["pending", "running"];

/** How many times a worker takes a job before it is failed (a job that kills its worker is not taken forever). */
export const MAX_ATTEMPTS = 3;

/** The cutoff before which a finished export's file goes. */
export const retentionCutoff = (now: Date, days: number) => new Date(now.getTime() - days * 86_400_000);

/** The download path of an export (what the mail links to, under PUBLIC_URL). */
export function downloadPath(kind: ExportKind, uuid: string, workspace: bigint | null): string {
  return kind === "workspace" ? `/api/v9/workspaces/${workspace}/exports/data/${uuid}.zip` : `/api/v9/me/export/data/${uuid}.zip`;
}

/** A uuid as the worker names files (anything else in a download path matches no export). */
export const isUuid = (text: string) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text);
