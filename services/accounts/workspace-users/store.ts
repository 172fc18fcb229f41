import { idBinding, readId } from "../../../lib/ids.js";
import type { Knex } from "../../../lib/db.js";
import { likePattern } from "../../../lib/scoped-table.js";
import { organizationUsers, type MembershipRow, type OrganizationUserRow, type UserProfile } from "../organizations/store.js";
import { workspaces, type WorkspaceRow } from "../workspaces/store.js";

/** A workspace membership with its user's organization row and profile. */
export interface WorkspaceMember {
  membership: MembershipRow;
  /** Undefined only for a membership whose user has no organization row (none is written so). */
  member?: OrganizationUserRow;
  profile: UserProfile;
  /** The user's first day of the week, 0 (Sunday) to 6. */
  beginningOfWeek: number;
}

/** The workspace (any organization), or undefined. */
export async function workspaceById(db: Knex, workspaceId: bigint): Promise<WorkspaceRow | undefined> {
  const raw = await db(workspaces.table).where({ id: workspaceId }).first();
  return raw ? workspaces.read(raw) : undefined;
}

/** The same, locked for a change in one read (as `workspaces.getForChange`, for a caller that knows no organization). */
export async function workspaceByIdForChange(trx: Knex.Transaction, workspaceId: bigint): Promise<WorkspaceRow | undefined> {
  const raw = await trx(workspaces.table).where({ id: workspaceId }).forUpdate().first();
  return raw ? workspaces.read(raw) : undefined;
}

/** The workspace's members, by name, optionally whose name contains `name`. */
export async function workspaceMembers(db: Knex, workspace: WorkspaceRow, name = ""): Promise<WorkspaceMember[]> {
  const q = db("workspace_users as wu")
    .join("users as u", "u.id", "wu.user_id")
    .leftJoin("organization_users as ou", (j) => j.on("ou.user_id", "=", "wu.user_id").andOn("ou.organization_id", "=", db.raw("?", [idBinding(workspace.organization_id)])))
    .where("wu.workspace_id", idBinding(workspace.id));
  if (name) q.andWhereRaw(`LOWER(u.fullname) LIKE ? ESCAPE '!'`, [likePattern(name)]);
  const raws: Record<string, unknown>[] = await q
    .orderByRaw("LOWER(u.fullname)")
    .orderBy("wu.id")
    .select(
      "wu.id as wu_id", "wu.user_id as wu_user_id", "wu.admin as wu_admin", "wu.role as wu_role", "wu.active as wu_active",
      "u.fullname as u_fullname", "u.email as u_email", "u.timezone as u_timezone", "u.beginning_of_week as u_beginning_of_week",
      "ou.id", "ou.organization_id", "ou.user_id", "ou.admin", "ou.owner", "ou.inactive", "ou.joined", "ou.role", "ou.rate", "ou.rate_last_updated",
      "ou.labour_cost", "ou.working_hours_in_minutes", "ou.created_at", "ou.updated_at",
    );
  return raws.map((raw) => ({
    membership: {
      id: readId(raw.wu_id),
      workspace_id: workspace.id,
      workspace_name: workspace.name,
      user_id: readId(raw.wu_user_id),
      admin: Boolean(raw.wu_admin),
      role: String(raw.wu_role),
      active: Boolean(raw.wu_active),
    },
    member: raw.id === null || raw.id === undefined ? undefined : organizationUsers.read(raw),
    profile: { id: readId(raw.wu_user_id), fullname: String(raw.u_fullname), email: String(raw.u_email), timezone: String(raw.u_timezone) },
    beginningOfWeek: Number(raw.u_beginning_of_week),
  }));
}

/** The workspace's memberships of these ids (those it has), locked for a change. */
export async function membershipsForChange(trx: Knex.Transaction, workspace: WorkspaceRow, ids: bigint[]): Promise<MembershipRow[]> {
  if (ids.length === 0) return [];
  const raws: Record<string, unknown>[] = await trx("workspace_users").where({ workspace_id: workspace.id }).whereIn("id", ids.map(idBinding)).forUpdate();
  return raws.map((raw) => membershipOf(raw, workspace));
}

/** The user's membership of the workspace, locked for a change. */
export async function membershipForChange(trx: Knex.Transaction, workspace: WorkspaceRow, userId: bigint): Promise<MembershipRow | undefined> {
  const raw = await trx("workspace_users").where({ workspace_id: workspace.id, user_id: userId }).forUpdate().first();
  return raw ? membershipOf(raw, workspace) : undefined;
}

function membershipOf(raw: Record<string, unknown>, workspace: WorkspaceRow): MembershipRow {
  return {
    id: readId(raw.id),
    workspace_id: workspace.id,
    workspace_name: workspace.name,
    user_id: readId(raw.user_id),
    admin: Boolean(raw.admin),
    role: String(raw.role),
    active: Boolean(raw.active),
  };
}

/** Deletes the memberships; a user whose default workspace this was gets another of its workspaces (or none). */
export async function deleteMemberships(trx: Knex.Transaction, memberships: MembershipRow[]): Promise<void> {
  if (memberships.length === 0) return;
  await trx("workspace_users").whereIn("id", memberships.map((m) => idBinding(m.id))).delete();
  for (const m of memberships) {
    const next = await trx("workspace_users").where({ user_id: m.user_id, active: true }).orderBy("workspace_id").first("workspace_id");
    await trx("users")
      .where({ id: m.user_id, default_workspace_id: m.workspace_id })
      .update({ default_workspace_id: next ? readId(next.workspace_id) : null });
  }
}

/** Whether the workspace has a membership of this id (a workspace user's id), without locks. */
export async function hasMembership(db: Knex, workspaceId: bigint, id: bigint): Promise<boolean> {
  return Boolean(await db("workspace_users").where({ workspace_id: workspaceId, id }).first("id"));
}

/** The membership of that id in the workspace, locked for a change. */
export async function membershipByIdForChange(trx: Knex.Transaction, workspace: WorkspaceRow, id: bigint): Promise<MembershipRow | undefined> {
  return (await membershipsForChange(trx, workspace, [id]))[0];
}

/** Makes the member a workspace admin or not; answers the membership as changed. */
export async function setMembershipAdmin(trx: Knex.Transaction, membership: MembershipRow, admin: boolean): Promise<MembershipRow> {
  const role = admin ? "admin" : "user";
  await trx("workspace_users").where({ id: membership.id }).update({ admin, role });
  return { ...membership, admin, role };
}
