import type { Knex } from "../../../lib/db.js";
import { ScopedTable, likePattern } from "../../../lib/scoped-table.js";

export interface GroupRow {
  id: number;
  organization_id: number;
  name: string;
  created_at: Date;
  updated_at: Date;
}

/** An organization's groups, each limited to its organization. */
export const groups = new ScopedTable<GroupRow>({
  table: "groups",
  scope: "organization_id",
  columns: { id: "id", organization_id: "id", name: "string", created_at: "date", updated_at: "date" },
  order: ["lower(name)", "id"],
});

/** A user of a group, as the group shows it. */
export interface GroupMember {
  group_id: number;
  user_id: number;
  name: string;
  joined: boolean;
}

/** A group with its users (of the organization still) and workspaces (of the organization still). */
export interface GroupView {
  group: GroupRow;
  users: GroupMember[];
  workspaces: number[];
}

/** The organization's groups as the list asks: name contains, assigned to a workspace; by name. */
export async function listGroups(db: Knex, organization: number, filter: { name?: string; workspace?: number } = {}): Promise<GroupRow[]> {
  const q = groups.query(db, organization);
  if (filter.name) q.andWhereRaw(`LOWER(name) LIKE ? ESCAPE '!'`, [likePattern(filter.name)]);
  if (filter.workspace !== undefined) {
    const workspace = filter.workspace;
    q.whereExists((e) => e.select(db.raw("1")).from("group_workspaces as gw").whereRaw("gw.group_id = groups.id").andWhere("gw.workspace_id", workspace));
  }
  return (await q.orderByRaw("LOWER(name)").orderBy("id")).map((raw: Record<string, unknown>) => groups.read(raw));
}

/** The groups with their users and workspaces. */
export async function viewsOf(db: Knex, organization: number, rows: GroupRow[]): Promise<GroupView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((g) => g.id);
  const users: Record<string, unknown>[] = await db("group_users as gu")
    .join("organization_users as ou", function () {
      this.on("ou.user_id", "gu.user_id").andOn("ou.organization_id", db.raw("?", [organization]));
    })
    .join("users as u", "u.id", "gu.user_id")
    .whereIn("gu.group_id", ids)
    .orderByRaw("LOWER(u.fullname)")
    .orderBy("gu.user_id")
    .select("gu.group_id", "gu.user_id", "u.fullname", "ou.joined");
  const spaces: Record<string, unknown>[] = await db("group_workspaces as gw")
    .join("workspaces as w", "w.id", "gw.workspace_id")
    .where("w.organization_id", organization)
    .whereIn("gw.group_id", ids)
    .orderBy("gw.workspace_id")
    .select("gw.group_id", "gw.workspace_id");
  return rows.map((group) => ({
    group,
    users: users
      .filter((u) => Number(u.group_id) === group.id)
      .map((u) => ({ group_id: group.id, user_id: Number(u.user_id), name: String(u.fullname), joined: Boolean(u.joined) })),
    workspaces: spaces.filter((w) => Number(w.group_id) === group.id).map((w) => Number(w.workspace_id)),
  }));
}

/** The organization's group of this name (ignoring case), other than `except`. */
export async function groupNamed(db: Knex, organization: number, name: string, except?: number): Promise<GroupRow | undefined> {
  const q = groups.query(db, organization).andWhereRaw("LOWER(name) = ?", [name.toLowerCase()]);
  if (except !== undefined) q.andWhereNot("id", except);
  const raw = await q.first();
  return raw ? groups.read(raw) : undefined;
}

/** The ones of `ids` that are users (user ids) of the organization. */
export async function usersAmong(db: Knex, organization: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  return (await db("organization_users").where("organization_id", organization).whereIn("user_id", ids).pluck("user_id")).map(Number);
}

export type GroupPath = "users" | "workspaces";

const LINKS: Record<GroupPath, { table: string; column: string }> = {
  users: { table: "group_users", column: "user_id" },
  workspaces: { table: "group_workspaces", column: "workspace_id" },
};

/** The ids linked to the group on the path. */
export async function linked(db: Knex, groupId: number, path: GroupPath): Promise<number[]> {
  const { table, column } = LINKS[path];
  return (await db(table).where("group_id", groupId).orderBy(column).pluck(column)).map(Number);
}

export async function link(trx: Knex.Transaction, groupId: number, path: GroupPath, ids: number[]): Promise<void> {
  const { table, column } = LINKS[path];
  const have = new Set(await linked(trx, groupId, path));
  const rows = [...new Set(ids)].filter((id) => !have.has(id)).map((id) => ({ group_id: groupId, [column]: id }));
  if (rows.length > 0) await trx(table).insert(rows);
}

export async function unlink(trx: Knex.Transaction, groupId: number, path: GroupPath, ids?: number[]): Promise<void> {
  const { table, column } = LINKS[path];
  const q = trx(table).where("group_id", groupId);
  if (ids) {
    if (ids.length === 0) return;
    q.whereIn(column, ids);
  }
  await q.delete();
}

/**
 * Assigns the group to the workspace (`add`) or takes it out (`remove`); the group's `at` moves
 * when its workspaces changed. Answers whether they did.
 */
export async function assignToWorkspace(trx: Knex.Transaction, group: GroupRow, workspaceId: number, operation: "add" | "remove", now: Date): Promise<boolean> {
  const assigned = (await linked(trx, group.id, "workspaces")).includes(workspaceId);
  if (assigned === (operation === "add")) return false;
  if (operation === "add") await link(trx, group.id, "workspaces", [workspaceId]);
  else await unlink(trx, group.id, "workspaces", [workspaceId]);
  await groups.update(trx, group, { updated_at: now });
  return true;
}

/** Takes the user out of every group of the organization (the user leaves it or is removed). */
export async function leaveGroups(trx: Knex.Transaction, organization: number, userId: number): Promise<void> {
  await trx("group_users").where("user_id", userId).whereIn("group_id", groups.query(trx, organization).select("id")).delete();
}

/** Deletes the organization's groups with their links (the organization goes). */
export async function deleteGroups(trx: Knex.Transaction, organization: number): Promise<void> {
  const ids = (await groups.query(trx, organization).pluck("id")).map(Number);
  if (ids.length === 0) return;
  await trx("group_users").whereIn("group_id", ids).delete();
  await trx("group_workspaces").whereIn("group_id", ids).delete();
  await groups.query(trx, organization).delete();
}

/** The organization's groups of each of these users (user id -> group ids). */
export async function groupsOfUsers(db: Knex, organization: number, userIds: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (userIds.length === 0) return out;
  const rows: { user_id: unknown; group_id: unknown }[] = await db("group_users as gu")
    .join("groups as g", "g.id", "gu.group_id")
    .where("g.organization_id", organization)
    .whereIn("gu.user_id", userIds)
    .orderBy("gu.group_id")
    .select("gu.user_id", "gu.group_id");
  for (const row of rows) out.set(Number(row.user_id), [...(out.get(Number(row.user_id)) ?? []), Number(row.group_id)]);
  return out;
}
