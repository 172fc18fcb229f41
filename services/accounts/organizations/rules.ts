import type {
  CreateOrganizationRequest,
  ListOrganizationUsersRequest,
  UpdateOrganizationUserRequest,
} from "../../../gen/accounts/v1/organizations_pb.js";
import { activeStatusInvalid, activeUserLimit, adminFlagsAndRole, foreignOrganizationUsers, newOrganizationNameEmpty, onlyAdminsInvalid, organizationFieldMissing, organizationNameEmpty, organizationRoleInvalid, organizationUserFieldMissing, organizationUserIdsMissing, organizationUserIdsRepeated, ownerAdminRequired, ownerDeactivation, ownerNotRemovable, paidFieldsNeedPaidPlan, postedFieldsInvalid, queryValueInvalid, queryValueNotPositive, rateChangeModeInvalid, sortDirInvalid, workspaceNameMissing } from "../errors.js";
import { isRateChangeMode, RATE_CHANGE_MODES } from "../../../lib/rate-change-modes.js";
import { workspaceName } from "../workspaces/rules.js";
import type { MemberQuery, MemberStatus, OrganizationUserRow } from "./store.js";

/** Workspaces an organization may have, as the organizations table's default holds it. */
export const DEFAULT_MAX_WORKSPACES = 20;
/** Workspaces one user may be a member of. */
export const MAX_WORKSPACES_PER_USER = 100;
/** Users holding a seat (not deactivated) in an organization on the free plan. */
export const FREE_PLAN_ACTIVE_USERS = 5;

/** Roles of an organization user; `admin` is the one with the admin flag. */
export const ORGANIZATION_ROLES = ["admin", "user", "projectlead", "teamlead"] as const;

/** The role an organization user has: admin with the admin flag, else the stored role below it. */
export function roleOf(member: Pick<OrganizationUserRow, "admin" | "role">): string {
  return member.admin ? "admin" : member.role === "admin" ? "user" : member.role;
}

/** A user of an organization acts in its workspaces while joined and not deactivated. */
export const mayAct = (member: Pick<OrganizationUserRow, "joined" | "inactive">) => member.joined && !member.inactive;

/** An organization's name: trimmed, not empty, at most 140 characters; `empty` is the operation's refusal. */
function organizationName(raw: string, empty: () => Error): string {
  const name = raw.trim();
  if (!name) throw empty();
  return name;
}

/** POST /organizations: the organization's and its first workspace's names. */
export function newOrganization(req: CreateOrganizationRequest): { name: string; workspaceName: string } {
  const name = organizationName(req.name, newOrganizationNameEmpty);
  if (req.workspaceName === undefined) throw workspaceNameMissing();
  return { name, workspaceName: workspaceName(req.workspaceName) };
}

/** PUT /organizations/{id}: the new name (the only field). */
export function renamedOrganization(name: string | undefined): string {
  if (name === undefined) throw organizationFieldMissing();
  return organizationName(name, organizationNameEmpty);
}

/** The states the organization users list filters on. */
const STATUSES: readonly MemberStatus[] = ["active", "inactive", "invited"];

const MAX_PAGE_NUMBER = 2 ** 31 - 1;

/** A whole number above 0 (its default when not given), with the real API's two messages. */
function positive(raw: string, name: string, fallback: number): number {
  if (raw === "") return fallback;
  if (!/^[+-]?\d+$/.test(raw.trim())) throw queryValueInvalid(name);
  const n = Number(raw.trim());
  if (n <= 0) throw queryValueNotPositive(name);
  if (n > MAX_PAGE_NUMBER) throw queryValueInvalid(name);
  return n;
}

/** A comma list of ids (positive whole numbers, each below 2^53), or undefined when not given. */
function idList(raw: string, name: string): bigint[] | undefined {
  if (raw.trim() === "") return undefined;
  const items = raw.split(",").map((s) => s.trim());
  if (items.some((s) => !/^\d{1,16}$/.test(s) || Number(s) <= 0 || !Number.isSafeInteger(Number(s)))) throw queryValueInvalid(name);
  return [...new Set(items.map((s) => BigInt(s)))];
}

/** The list's query parameters as the real API reads them: defaults, and its message for each bad value. */
export function memberQuery(req: ListOrganizationUsersRequest): MemberQuery {
  let statuses: MemberStatus[] | undefined;
  if (req.activeStatus.trim() !== "") {
    const given = req.activeStatus.split(",").map((s) => s.trim());
    if (given.some((s) => !STATUSES.includes(s as MemberStatus))) throw activeStatusInvalid();
    statuses = [...new Set(given as MemberStatus[])];
  }
  const onlyAdmins = req.onlyAdmins.trim();
  if (onlyAdmins !== "" && onlyAdmins !== "true" && onlyAdmins !== "false") throw onlyAdminsInvalid();
  const sortDir = req.sortDir.trim() || "asc";
  if (sortDir !== "asc" && sortDir !== "desc") throw sortDirInvalid();
  return {
    filter: req.filter.trim(),
    statuses,
    onlyAdmins: onlyAdmins === "true",
    groups: idList(req.groups, "groups"),
    workspaces: idList(req.workspaces, "workspaces"),
    page: positive(req.page, "page", 1),
    perPage: positive(req.perPage, "per_page", 50),
    sortDir,
  };
}

/** The pagination the list answers in its headers. */
export function pagination(query: MemberQuery, records: number) {
  return { page: query.page, pageSize: query.perPage, pages: Math.ceil(records / query.perPage), records, sortOrder: query.sortDir };
}

/** PATCH /organizations/{id}/users: the ids to remove, at least one, each once. */
export function removalIds(ids: bigint[]): bigint[] {
  if (ids.length === 0) throw organizationUserIdsMissing();
  if (new Set(ids.map(String)).size !== ids.length) throw organizationUserIdsRepeated();
  return ids;
}

/**
 * Whether the organization users of `ids` may be removed: all of the organization (`found`), none
 * its owner. Here the owner is also the paying user (operators set the plan; nobody else pays),
 * so the owner's rule answers for both.
 */
export function checkRemovable(ids: bigint[], found: OrganizationUserRow[]): void {
  const known = new Set(found.map((m) => String(m.id)));
  const foreign = ids.filter((id) => !known.has(String(id)));
  if (foreign.length > 0) throw foreignOrganizationUsers(foreign);
  const owner = found.find((m) => m.owner);
  if (owner) throw ownerNotRemovable(owner.id);
}

/** The fields of PUT /organizations/{id}/users/{id} that `postedFields` may name. */
const POSTABLE = ["admin", "inactive", "labour_cost", "rate", "rate_change_mode", "role", "working_hours_in_minutes"];
/** The paid fields: a paid organization plan sets them. */
const PAID_FIELDS = "rate, labour_cost, rate_change_mode and working_hours_in_minutes";

/** The changes a PUT of an organization user asks for, checked against the request alone. */
export interface OrganizationUserInput {
  admin?: boolean;
  role?: string;
  inactive?: boolean;
  /** null: set to null (posted without a value). */
  rate?: number | null;
  labourCost?: number | null;
  workingHoursInMinutes?: number | null;
  /** Gives a paid field a value (a paid plan is needed). */
  setsPaidField: boolean;
}

/** Reads the PUT body: at least one field, a known role, a known rate change mode, not both admin and role. */
export function organizationUserInput(req: UpdateOrganizationUserRequest): OrganizationUserInput {
  const posted = new Set(req.postedFields.map((f) => f.trim()));
  for (const name of posted) if (!POSTABLE.includes(name)) throw postedFieldsInvalid(POSTABLE);
  const given = [req.admin, req.inactive, req.labourCost, req.rate, req.rateChangeMode, req.role, req.workingHoursInMinutes].some((v) => v !== undefined);
  if (!given && posted.size === 0) throw organizationUserFieldMissing();
  if (req.admin !== undefined && req.role !== undefined) throw adminFlagsAndRole();
  if (req.role !== undefined && !(ORGANIZATION_ROLES as readonly string[]).includes(req.role)) throw organizationRoleInvalid();
  if (req.rateChangeMode !== undefined && !isRateChangeMode(req.rateChangeMode)) throw rateChangeModeInvalid(RATE_CHANGE_MODES);
  // A posted field without a value is set to null (a JSON null arrives as "not given").
  const nullable = <T>(value: T | undefined, name: string): T | null | undefined => (value !== undefined ? value : posted.has(name) ? null : undefined);
  return {
    admin: req.admin,
    role: req.role,
    inactive: req.inactive,
    rate: nullable(req.rate, "rate"),
    labourCost: nullable(req.labourCost === undefined ? undefined : Number(req.labourCost), "labour_cost"),
    workingHoursInMinutes: nullable(req.workingHoursInMinutes === undefined ? undefined : Number(req.workingHoursInMinutes), "working_hours_in_minutes"),
    setsPaidField: [req.rate, req.labourCost, req.rateChangeMode, req.workingHoursInMinutes].some((v) => v !== undefined),
  };
}

/**
 * The row changes of a PUT of an organization user: a paid field needs a paid plan (402; clearing
 * one does not), the owner stays an active admin. Only what differs from the row.
 */
export function organizationUserChanges(input: OrganizationUserInput, target: OrganizationUserRow, paid: boolean, now: Date): Partial<OrganizationUserRow> {
  if (input.setsPaidField && !paid) throw paidFieldsNeedPaidPlan(PAID_FIELDS);
  const wanted: Partial<OrganizationUserRow> = {};
  if (input.admin !== undefined) {
    wanted.admin = input.admin;
    wanted.role = input.admin ? "admin" : roleOf(target) === "admin" ? "user" : target.role;
  }
  if (input.role !== undefined) {
    wanted.admin = input.role === "admin";
    wanted.role = input.role;
  }
  if (target.owner && wanted.admin === false) throw ownerAdminRequired();
  if (input.inactive !== undefined) {
    if (target.owner && input.inactive) throw ownerDeactivation();
    wanted.inactive = input.inactive;
  }
  if (input.rate !== undefined) wanted.rate = input.rate;
  if (input.labourCost !== undefined) wanted.labour_cost = input.labourCost;
  if (input.workingHoursInMinutes !== undefined) wanted.working_hours_in_minutes = input.workingHoursInMinutes;
  const changes = Object.fromEntries(Object.entries(wanted).filter(([k, v]) => target[k as keyof OrganizationUserRow] !== v)) as Partial<OrganizationUserRow>;
  if ("rate" in changes) changes.rate_last_updated = now;
  return changes;
}

/** Reactivating a user takes a seat: the free plan has FREE_PLAN_ACTIVE_USERS. */
export function checkSeatFree(paid: boolean, seatsTaken: number): void {
  if (!paid && seatsTaken >= FREE_PLAN_ACTIVE_USERS) throw activeUserLimit(FREE_PLAN_ACTIVE_USERS);
}
