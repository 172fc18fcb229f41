import { CreateGroupRequestSchema } from "../../../gen/accounts/v1/groups_pb.js";
import { CreateClientRequestSchema } from "../../../gen/tracking/v1/clients_pb.js";
import { ProjectInputSchema } from "../../../gen/tracking/v1/projects_pb.js";
import { TaskInputSchema } from "../../../gen/tracking/v1/tasks_pb.js";
import { CreateTagRequestSchema } from "../../../gen/tracking/v1/tags_pb.js";
import { TimeEntryBodySchema } from "../../../gen/tracking/v1/time_entries_pb.js";
import { declaredMaxLength } from "../../../lib/field-limits.js";
import { importFileInvalid } from "../errors.js";
import { parseDay, parseInstant } from "../time-entries/rules.js";

/**
 * What an import reads from its files, whatever the source: the names of what a workspace holds
 * (matched by name, never by the file's ids) and its time entries, each with where it came from
 * (the refusal of a malformed one names the file and line or entry).
 */

/** A project is named within its client (the same name under two clients is two projects). */
export interface ProjectRef {
  client: string | null;
  name: string;
}

export interface ImportedClient {
  name: string;
  archived: boolean;
  notes: string | null;
}

export interface ImportedProject extends ProjectRef {
  active: boolean;
  isPrivate: boolean;
  color: string | null;
  billable: boolean | null;
  /** `YYYY-MM-DD`; null: the day of the import, as for a project created then. */
  startDate: string | null;
  endDate: string | null;
  estimatedSeconds: number | null;
  autoEstimates: boolean | null;
  rate: number | null;
  currency: string | null;
  fixedFee: number | null;
}

/**
 * A project named only by an entry (a CSV row): what a project created through the API has. Its
 * fields are written out: a spread followed by a dozen properties (`{ ...ref, active, ... }`) costs
 * V8 (Node 20) some 10 µs and new hidden classes, straight into the old space, at every call.
 */
export const plainProject = (ref: ProjectRef): ImportedProject => ({
  client: ref.client, name: ref.name, active: true, isPrivate: false, color: null, billable: null, startDate: null, endDate: null, estimatedSeconds: null, autoEstimates: null, rate: null, currency: null, fixedFee: null,
});

export interface ImportedTask {
  project: ProjectRef;
  name: string;
  active: boolean;
  estimatedSeconds: number | null;
  rate: number | null;
  /** The assignee's address (a member's here, or nobody). */
  assignee: string | null;
}

export interface ImportedProjectUser {
  project: ProjectRef;
  email: string;
  manager: boolean;
  rate: number | null;
  labourCost: number | null;
}

/** A group of the organization: its name and, when the files say, its members' addresses. */
export interface ImportedGroup {
  name: string;
  members: string[];
}

/** A group of the organization given a project, by the group's name. */
export interface ImportedProjectGroup {
  project: ProjectRef;
  group: string;
}

/** A time entry of the files, checked (a refusal names its file and line or item while it is read; the entry does not keep them). */
export interface ImportedEntry {
  /** The owner's address, lower-cased. */
  email: string;
  project: ProjectRef | null;
  task: string | null;
  description: string | null;
  billable: boolean;
  start: Date;
  /** Seconds; -1 for an entry that still runs. */
  duration: number;
  tags: string[];
  /** Deleted where it comes from (our own JSON): imported deleted, as the API answers it among `since` changes. */
  deleted: boolean;
}

/** The longest duration an entry may have: a year. */
export const MAX_DURATION_SECONDS = 366 * 86_400;

/** The lengths the resources' own endpoints declare (their proto limits). */
export const NAME_LIMITS = {
  client: declaredMaxLength(CreateClientRequestSchema.field.name),
  project: declaredMaxLength(ProjectInputSchema.field.name),
  task: declaredMaxLength(TaskInputSchema.field.name),
  tag: declaredMaxLength(CreateTagRequestSchema.field.name),
  description: declaredMaxLength(TimeEntryBodySchema.field.description),
  group: declaredMaxLength(CreateGroupRequestSchema.field.name),
  notes: declaredMaxLength(CreateClientRequestSchema.field.notes),
  currency: 3,
};

/** The key of a name where case does not make a new one (clients, tags, projects within a client, tasks within a project). */
export const nameKey = (name: string) => name.trim().toLowerCase();
export const projectKey = (p: ProjectRef) => `${nameKey(p.client ?? "")}\u0000${nameKey(p.name)}`;
export const taskKey = (p: ProjectRef, task: string) => `${projectKey(p)}\u0000${nameKey(task)}`;

/** A name from a file: trimmed, non-blank, within the length its endpoint declares; else the file's refusal. */
export function importedName(raw: unknown, what: keyof typeof NAME_LIMITS, where: string): string {
  if (typeof raw !== "string") throw importFileInvalid(where, `${what} must be a string`);
  const name = raw.trim();
  if (!name) throw importFileInvalid(where, `${what} is empty`);
  if ([...name].length > NAME_LIMITS[what]) throw importFileInvalid(where, `${what} is longer than ${NAME_LIMITS[what]} characters`);
  return name;
}

/** An optional name: blank (or null) is none. */
export function optionalName(raw: unknown, what: keyof typeof NAME_LIMITS, where: string): string | null {
  if (raw === null || raw === undefined || (typeof raw === "string" && raw.trim() === "")) return null;
  return importedName(raw, what, where);
}

const EMAIL = /^[^\s@]+@[^\s@]+$/;

/** An address, lower-cased (accounts keep them so). */
export function importedEmail(raw: unknown, where: string): string {
  const email = typeof raw === "string" ? raw.trim().toLowerCase() : "";
  if (!EMAIL.test(email) || email.length > 254) throw importFileInvalid(where, `invalid e-mail ${JSON.stringify(String(raw ?? "")).slice(0, 80)}`);
  return email;
}

/** `HH:MM:SS` (hours past 24 allowed, as the real CSV writes them) to seconds, at most a year. */
export function csvDuration(raw: string, where: string): number {
  const m = /^(\d{1,7}):([0-5]\d):([0-5]\d)$/.exec(raw.trim());
  if (!m) throw importFileInvalid(where, `invalid Duration ${JSON.stringify(raw)}: expected HH:MM:SS`);
  return checkedDuration(Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3]), where);
}

export function checkedDuration(seconds: number, where: string): number {
  if (seconds > MAX_DURATION_SECONDS) throw importFileInvalid(where, `duration over a year (${seconds} seconds)`);
  return seconds;
}

const zoneFormats = new Map<string, Intl.DateTimeFormat>();

/** A formatter that answers wall-clock parts in `timeZone`, or undefined for a zone the runtime does not know. */
function zoneFormat(timeZone: string): Intl.DateTimeFormat | undefined {
  let format = zoneFormats.get(timeZone);
  if (!format) {
    try {
      format = new Intl.DateTimeFormat("en-US", { timeZone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric" });
    } catch {
      return undefined;
    }
    zoneFormats.set(timeZone, format);
  }
  return format;
}

/** True for an IANA zone name the runtime knows. */
export const isKnownZone = (timeZone: string) => zoneFormat(timeZone) !== undefined;

/** The instant a wall-clock date and time of `timeZone` stands for (the zone's offset at that moment). */
export function wallClock(date: string, time: string, timeZone: string, where: string): Date {
  const day = parseDay(date);
  if (!day) throw importFileInvalid(where, `invalid Start date ${JSON.stringify(date)}: expected YYYY-MM-DD`);
  const m = /^([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/.exec(time.trim());
  if (!m) throw importFileInvalid(where, `invalid Start time ${JSON.stringify(time)}: expected HH:MM:SS`);
  const wall = Date.UTC(day.year, day.month - 1, day.day, Number(m[1]), Number(m[2]), Number(m[3]));
  return new Date(wall - wallOffset(wall, timeZone));
}

const QUARTER_HOUR = 15 * 60_000;
/** Offsets by zone and quarter hour of wall-clock time (zones change offsets on quarter hours only): a file's rows share few. */
const offsets = new Map<string, Map<number, number>>();

/** The offset (ms) of `timeZone` that a wall-clock time (as UTC milliseconds) is in. */
function wallOffset(wall: number, timeZone: string): number {
  if (timeZone === "UTC") return 0;
  let known = offsets.get(timeZone);
  if (!known || known.size > 100_000) offsets.set(timeZone, (known = new Map()));
  const quarter = Math.floor(wall / QUARTER_HOUR);
  let offset = known.get(quarter);
  if (offset === undefined) {
    const format = zoneFormat(timeZone)!;
    const offsetAt = (ms: number) => {
      const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, Number(p.value)]));
      return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second) - ms;
    };
    // Twice: the offset at the first guess may differ from the one at the answer (a DST change nearby).
    offset = offsetAt(wall - offsetAt(wall));
    known.set(quarter, offset);
  }
  return offset;
}

/** An RFC 3339 instant of a JSON entry, whole seconds (as entries are stored). */
export function jsonInstant(raw: unknown, field: string, where: string): Date {
  const at = typeof raw === "string" ? parseInstant(raw) : undefined;
  if (!at) throw importFileInvalid(where, `invalid ${field} ${JSON.stringify(raw ?? null)}: expected an RFC 3339 time`);
  return new Date(Math.floor(at.getTime() / 1000) * 1000);
}

/** `Yes`/`No` (the real CSV), `true`/`false`; blank is not billable. */
export function csvBillable(raw: string, where: string): boolean {
  const v = raw.trim().toLowerCase();
  if (v === "yes" || v === "true") return true;
  if (v === "no" || v === "false" || v === "") return false;
  throw importFileInvalid(where, `invalid Billable ${JSON.stringify(raw)}: expected Yes or No`);
}

/** Tags of one CSV cell: comma-separated names. */
export function csvTags(raw: string, where: string): string[] {
  return raw
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "")
    .map((t) => importedName(t, "tag", where));
}

/** The description of an entry: null when blank, within the time entry body's declared length. */
export function importedDescription(raw: unknown, where: string): string | null {
  if (raw === null || raw === undefined || raw === "") return null;
  if (typeof raw !== "string") throw importFileInvalid(where, "description must be a string");
  if ([...raw].length > NAME_LIMITS.description) throw importFileInvalid(where, `description is longer than ${NAME_LIMITS.description} characters`);
  return raw;
}

/** An optional amount (a rate, a fee): null, or a finite number from 0 to a billion (what the rates endpoints take). */
export function importedAmount(raw: unknown, field: string, where: string): number | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== "number" || !Number.isFinite(raw) || raw < 0 || raw > 1_000_000_000) throw importFileInvalid(where, `${field} must be a number from 0 to 1000000000`);
  return raw;
}

/** Optional seconds (an estimate): null, or a whole number from 0 to 100 years. */
export function importedSeconds(raw: unknown, field: string, where: string): number | null {
  if (raw === null || raw === undefined) return null;
  if (typeof raw !== "number" || !Number.isSafeInteger(raw) || raw < 0 || raw > 100 * 366 * 86_400) throw importFileInvalid(where, `${field} must be a whole number of seconds`);
  return raw;
}

/** An optional day: null, or `YYYY-MM-DD`. */
export function importedDay(raw: unknown, field: string, where: string): string | null {
  if (raw === null || raw === undefined || raw === "") return null;
  if (typeof raw !== "string" || !parseDay(raw)) throw importFileInvalid(where, `invalid ${field} ${JSON.stringify(raw)}: expected YYYY-MM-DD`);
  return raw;
}

/** Optional text (a client's notes, a currency): null, or a string within its limit. */
export function importedText(raw: unknown, what: "notes" | "currency", where: string): string | null {
  if (raw === null || raw === undefined || raw === "") return null;
  if (typeof raw !== "string") throw importFileInvalid(where, `${what} must be a string`);
  if ([...raw].length > NAME_LIMITS[what]) throw importFileInvalid(where, `${what} is longer than ${NAME_LIMITS[what]} characters`);
  return raw;
}

/**
 * The identity of a time entry, the same for the same entry in any file: its owner (a user, or
 * the address of someone without an account), start, duration, description and project.
 */
export function entryKey(owner: string, start: Date, duration: number, description: string | null, projectId: bigint | null, deleted = false): string {
  return `${owner}\u0000${start.getTime() / 1000}\u0000${duration}\u0000${description ?? ""}\u0000${projectId ?? 0}${deleted ? "\u0000deleted" : ""}`;
}
