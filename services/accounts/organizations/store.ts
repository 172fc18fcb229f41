import { idBinding, readId } from "../../../lib/ids.js";
import type { Knex } from "../../../lib/db.js";
import { ScopedTable, likePattern } from "../../../lib/scoped-table.js";
import { workspaces, type WorkspaceRow } from "../workspaces/store.js";
import { deleteGroups, leaveGroups } from "../groups/store.js";

/** A member's standing in the organization users list (`active_status`). */
export type MemberStatus = "active" | "inactive" | "invited";

/** What the organization users list asks for; lists undefined when not given. */
export interface MemberQuery {
  filter: string;
  statuses?: MemberStatus[];
  onlyAdmins: boolean;
  groups?: bigint[];
  workspaces?: bigint[];
  page: number;
  perPage: number;
  sortDir: "asc" | "desc";
}

export interface OrganizationRow {
  id: bigint;
  name: string;
  owner_id: bigint;
  max_workspaces: number;
  /** 0 free, 1 paid (plan.ts PRICING_PLAN); set by operators only; the plan of every workspace of it. */
  pricing_plan_id: number;
  created_at: Date;
  updated_at: Date;
}

/** Organizations; an organization is its own scope (the scope column is its id). */
export const organizations = new ScopedTable<OrganizationRow>({
  table: "organizations",
  scope: "id",
  columns: { id: "id", name: "string", owner_id: "id", max_workspaces: "integer", pricing_plan_id: "integer", created_at: "date", updated_at: "date" },
  order: ["id"],
});

export interface OrganizationUserRow {
  id: bigint;
  organization_id: bigint;
  /** Null for an invited address that has no account yet (`email` holds it). */
  user_id: bigint | null;
  /** The invited address while `user_id` is null (a pending invitee); null otherwise. */
  email: string | null;
  admin: boolean;
  owner: boolean;
  inactive: boolean;
  /** False while the user has not accepted the invitation. */
  joined: boolean;
  /** The role below admin (user, projectlead, teamlead); `admin` decides admin (rules.ts roleOf). */
  role: string;
  rate: number | null;
  rate_last_updated: Date | null;
  labour_cost: number | null;
  working_hours_in_minutes: number | null;
  /** Null on rows sign-up wrote: they were made with their organization. */
  created_at: Date | null;
  updated_at: Date | null;
}

/** An organization user who has an account: every one but a pending invitee (an address invited before it signed up). */
export type AccountMember = OrganizationUserRow & { user_id: bigint };

/** An organization's users (memberships, and pending invitees), each limited to its organization. */
export const organizationUsers = new ScopedTable<OrganizationUserRow>({
  table: "organization_users",
  scope: "organization_id",
  columns: {
    id: "id",
    organization_id: "id",
    user_id: "id?",
    email: "string?",
    admin: "boolean",
    owner: "boolean",
    inactive: "boolean",
    joined: "boolean",
    role: "string",
    rate: "number?",
    rate_last_updated: "date?",
    labour_cost: "integer?",
    working_hours_in_minutes: "integer?",
    created_at: "date?",
    updated_at: "date?",
  },
  order: ["id"],
});

/** A user's membership of one workspace of an organization. */
export interface MembershipRow {
  id: bigint;
  workspace_id: bigint;
  workspace_name: string;
  user_id: bigint;
  admin: boolean;
  role: string;
  active: boolean;
}

/** What an organization's lists show of a user's account. */
export interface UserProfile {
  id: bigint;
  fullname: string;
  email: string;
  timezone: string;
}

function membership(raw: Record<string, unknown>): MembershipRow {
  return {
    id: readId(raw.id),
    workspace_id: readId(raw.workspace_id),
    workspace_name: String(raw.workspace_name),
    user_id: readId(raw.user_id),
    admin: Boolean(raw.admin),
    role: String(raw.role),
    active: Boolean(raw.active),
  };
}

/** The user's row in the organization, whatever its state. */
export async function memberOf(db: Knex, organization: bigint, userId: bigint): Promise<AccountMember | undefined> {
  const raw = await organizationUsers.query(db, organization).andWhere("user_id", idBinding(userId)).first();
  return raw ? (organizationUsers.read(raw) as AccountMember) : undefined;
}

/** The same, in a change's transaction, locked until it commits. */
export async function memberForChange(trx: Knex.Transaction, organization: bigint, userId: bigint): Promise<AccountMember | undefined> {
  const raw = await organizationUsers.query(trx, organization).andWhere("user_id", idBinding(userId)).first().forUpdate();
  return raw ? (organizationUsers.read(raw) as AccountMember) : undefined;
}

/** The pending invitee of an address (invited, no account yet) in the organization, locked for a change. */
export async function inviteeForChange(trx: Knex.Transaction, organization: bigint, email: string): Promise<OrganizationUserRow | undefined> {
  const raw = await organizationUsers.query(trx, organization).whereNull("user_id").andWhere("email", email).first().forUpdate();
  return raw ? organizationUsers.read(raw) : undefined;
}

/** The organization's users of these ids (those it has), locked for a change. */
export async function membersForChange(trx: Knex.Transaction, organization: bigint, ids: bigint[]): Promise<OrganizationUserRow[]> {
  if (ids.length === 0) return [];
  return (await organizationUsers.query(trx, organization).whereIn("id", ids.map(idBinding)).forUpdate()).map((raw: Record<string, unknown>) => organizationUsers.read(raw));
}

/** How many users (joined, invited, inactive; pending invitees too) the organization has. */
export async function userCount(db: Knex, organization: bigint): Promise<number> {
  const [{ n }] = await organizationUsers.query(db, organization).count({ n: "*" });
  return Number(n);
}

/** How many of the organization's users hold a seat: all but the deactivated (invited ones and pending invitees too). */
export async function activeSeats(db: Knex, organization: bigint): Promise<number> {
  const [{ n }] = await organizationUsers.query(db, organization).andWhere("inactive", false).count({ n: "*" });
  return Number(n);
}

/** The organizations the user is a joined, active member of, with the membership, by name. */
export async function organizationsOf(db: Knex, userId: bigint): Promise<{ organization: OrganizationRow; member: OrganizationUserRow; users: number }[]> {
  const rows: Record<string, unknown>[] = await db("organizations as o")
    .join("organization_users as ou", "ou.organization_id", "o.id")
    .where({ "ou.user_id": userId, "ou.joined": true, "ou.inactive": false })
    .orderByRaw("LOWER(o.name)")
    .orderBy("o.id")
    .select("o.*", "ou.id as member_id");
  if (rows.length === 0) return [];
  const ids = rows.map((r) => readId(r.id));
  const members = (await db(organizationUsers.table).whereIn("organization_id", ids.map(idBinding)).andWhere("user_id", idBinding(userId))).map((r: Record<string, unknown>) => organizationUsers.read(r));
  const counts = new Map<bigint, number>(
    (await db(organizationUsers.table).whereIn("organization_id", ids.map(idBinding)).groupBy("organization_id").select("organization_id").count({ n: "*" })).map(
      (r: Record<string, unknown>) => [readId(r.organization_id), Number(r.n)],
    ),
  );
  return rows.map((raw) => {
    const organization = organizations.read(raw);
    return { organization, member: members.find((m) => m.organization_id === organization.id)!, users: counts.get(organization.id) ?? 0 };
  });
}

/** The ones of `ids` that are workspaces of the organization. */
export async function workspacesAmong(db: Knex, organization: bigint, ids: bigint[]): Promise<bigint[]> {
  if (ids.length === 0) return [];
  return (await workspaces.query(db, organization).whereIn("id", ids.map(idBinding)).pluck("id")).map(readId);
}

const STATUS_CONDITIONS: Record<MemberStatus, { joined: boolean; inactive?: boolean }> = {
  active: { joined: true, inactive: false },
  inactive: { joined: true, inactive: true },
  invited: { joined: false },
};

/** A row of the organization users list: the organization user, and its account's profile (none for a pending invitee). */
export interface MemberListRow {
  member: OrganizationUserRow;
  profile?: UserProfile;
}

/**
 * One page of the organization's users as the query asks, sorted on the user's name (a pending
 * invitee, who has none, on its address), and how many match in all. Name or address filters
 * everyone; a pending invitee is in no workspace or group yet.
 */
export async function memberPage(db: Knex, organization: bigint, query: MemberQuery): Promise<{ rows: MemberListRow[]; total: number }> {
  const ou = organizationUsers.table;
  const q = organizationUsers.query(db, organization).leftJoin("users as u", "u.id", `${ou}.user_id`);
  if (query.filter) {
    const pattern = likePattern(query.filter);
    q.andWhere((w) => w.whereRaw(`LOWER(u.fullname) LIKE ? ESCAPE '!'`, [pattern]).orWhereRaw(`LOWER(COALESCE(u.email, ${ou}.email)) LIKE ? ESCAPE '!'`, [pattern]));
  }
  if (query.statuses) {
    const statuses = query.statuses;
    q.andWhere((w) => {
      for (const status of statuses) w.orWhere((s) => s.where(Object.fromEntries(Object.entries(STATUS_CONDITIONS[status]).map(([k, v]) => [`${ou}.${k}`, v]))));
    });
  }
  if (query.onlyAdmins) q.andWhere(`${ou}.admin`, true);
  if (query.groups && query.groups.length > 0) {
    const ids = query.groups;
    q.whereExists((e) =>
      e.select(db.raw("1")).from("group_users as gu").join("groups as g", "g.id", "gu.group_id").whereRaw(`gu.user_id = ${ou}.user_id`).andWhere("g.organization_id", idBinding(organization)).whereIn("g.id", ids.map(idBinding)),
    );
  }
  if (query.workspaces && query.workspaces.length > 0) {
    const ids = query.workspaces;
    q.whereExists((e) => e.select(db.raw("1")).from("workspace_users as wu").whereRaw(`wu.user_id = ${ou}.user_id`).whereIn("wu.workspace_id", ids.map(idBinding)));
  }
  const [{ n }] = await q.clone().count({ n: "*" });
  const total = Number(n);
  const offset = (query.page - 1) * query.perPage;
  if (offset >= total) return { rows: [], total };
  const raws: Record<string, unknown>[] = await q
    .orderByRaw(`LOWER(COALESCE(u.fullname, ${ou}.email)) ${query.sortDir}`)
    .orderBy(`${ou}.id`, query.sortDir)
    .limit(query.perPage)
    .offset(offset)
    .select(`${ou}.*`, "u.fullname as profile_fullname", "u.email as profile_email", "u.timezone as profile_timezone");
  return {
    rows: raws.map((raw) => ({
      member: organizationUsers.read(raw),
      profile:
        raw.user_id === null || raw.profile_email === null
          ? undefined
          : { id: readId(raw.user_id), fullname: String(raw.profile_fullname), email: String(raw.profile_email), timezone: String(raw.profile_timezone) },
    })),
    total,
  };
}

/** The ones of `ids` that are groups of the organization. */
export async function groupsAmong(db: Knex, organization: bigint, ids: bigint[]): Promise<bigint[]> {
  if (ids.length === 0) return [];
  return (await db("groups").where("organization_id", idBinding(organization)).whereIn("id", ids.map(idBinding)).pluck("id")).map(readId);
}

/** The groups (of the organization) of each of the users, by group name. */
export async function groupsOfUsers(db: Knex, organization: bigint, userIds: bigint[]): Promise<{ user_id: bigint; group_id: bigint; name: string }[]> {
  if (userIds.length === 0) return [];
  const raws: Record<string, unknown>[] = await db("group_users as gu")
    .join("groups as g", "g.id", "gu.group_id")
    .where("g.organization_id", idBinding(organization))
    .whereIn("gu.user_id", userIds.map(idBinding))
    .orderByRaw("LOWER(g.name)")
    .orderBy("g.id")
    .select("gu.user_id", "g.id as group_id", "g.name");
  return raws.map((r) => ({ user_id: readId(r.user_id), group_id: readId(r.group_id), name: String(r.name) }));
}

/** The workspace memberships in the organization of each of the users, by workspace name. */
export async function membershipsIn(db: Knex, organization: bigint, userIds: bigint[]): Promise<MembershipRow[]> {
  if (userIds.length === 0) return [];
  const raws: Record<string, unknown>[] = await db("workspace_users as wu")
    .join("workspaces as w", "w.id", "wu.workspace_id")
    .where("w.organization_id", idBinding(organization))
    .whereIn("wu.user_id", userIds.map(idBinding))
    .orderByRaw("LOWER(w.name)")
    .orderBy("w.id")
    .select("wu.id", "wu.workspace_id", "w.name as workspace_name", "wu.user_id", "wu.admin", "wu.role", "wu.active");
  return raws.map(membership);
}

export async function userProfile(db: Knex, userId: bigint): Promise<UserProfile> {
  const raw = await db("users").where({ id: userId }).first("id", "fullname", "email", "timezone");
  return { id: readId(raw.id), fullname: String(raw.fullname), email: String(raw.email), timezone: String(raw.timezone) };
}

/** How many workspaces the user is a member of (the per-user limit), its account locked against a concurrent count. */
export async function workspaceCountForChange(trx: Knex.Transaction, userId: bigint): Promise<number> {
  await trx("users").where({ id: userId }).forUpdate().first("id");
  const [{ n }] = await trx("workspace_users").where({ user_id: userId }).count({ n: "*" });
  return Number(n);
}

/** A new workspace of the organization, with the settings' initial values (the column defaults). */
export async function insertWorkspace(trx: Knex.Transaction, organization: bigint, name: string, now: Date): Promise<bigint> {
  const [id] = await trx(workspaces.table).insert({ organization_id: organization, name, created_at: now, updated_at: now });
  return readId(id);
}

export async function insertMembership(trx: Knex.Transaction, row: Omit<MembershipRow, "id" | "workspace_name">, workspaceName: string): Promise<MembershipRow> {
  const [id] = await trx("workspace_users").insert({ workspace_id: row.workspace_id, user_id: row.user_id, admin: row.admin, role: row.role, active: row.active });
  return { ...row, id: readId(id), workspace_name: workspaceName };
}

/** A user with no default workspace (sign-up sets one; leaving can clear it) gets this one. */
export async function defaultWorkspaceIfNone(trx: Knex.Transaction, userId: bigint, workspaceId: bigint): Promise<void> {
  await trx("users").where({ id: userId }).whereNull("default_workspace_id").update({ default_workspace_id: workspaceId });
}

/** The memberships of the user's workspaces in the organization may act (or not) from now on. */
export async function setMembershipsActive(trx: Knex.Transaction, memberships: MembershipRow[], active: boolean): Promise<MembershipRow[]> {
  if (memberships.length > 0) await trx("workspace_users").whereIn("id", memberships.map((m) => idBinding(m.id))).update({ active });
  return memberships.map((m) => ({ ...m, active }));
}

/**
 * Removes the user from the organization: its workspace memberships there, its organization
 * user row; a default workspace among them moves to another of its workspaces (or none).
 * Answers the memberships removed (a pending invitee has none: only its row goes).
 */
export async function removeMember(trx: Knex.Transaction, member: OrganizationUserRow): Promise<MembershipRow[]> {
  if (member.user_id === null) {
    await organizationUsers.delete(trx, member);
    return [];
  }
  const removed = await membershipsIn(trx, member.organization_id, [member.user_id]);
  if (removed.length > 0) await trx("workspace_users").whereIn("id", removed.map((m) => idBinding(m.id))).delete();
  await organizationUsers.delete(trx, member);
  await leaveGroups(trx, member.organization_id, member.user_id);
  const gone = removed.map((m) => m.workspace_id);
  if (gone.length > 0) {
    const next = await trx("workspace_users").where({ user_id: member.user_id, active: true }).orderBy("workspace_id").first("workspace_id");
    await trx("users")
      .where({ id: member.user_id })
      .whereIn("default_workspace_id", gone.map(idBinding))
      .update({ default_workspace_id: next ? readId(next.workspace_id) : null });
  }
  return removed;
}

/** Deletes an organization that has no users left, with its workspaces and whatever memberships they hold; answers the workspaces. */
export async function deleteOrganization(trx: Knex.Transaction, organization: OrganizationRow): Promise<WorkspaceRow[]> {
  const gone = await workspaces.list(trx, organization.id);
  if (gone.length > 0) await trx("workspace_users").whereIn("workspace_id", gone.map((w) => idBinding(w.id))).delete();
  await workspaces.query(trx, organization.id).delete();
  await organizationUsers.query(trx, organization.id).delete();
  await deleteGroups(trx, organization.id);
  await organizations.delete(trx, organization);
  return gone;
}
