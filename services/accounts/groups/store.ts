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

/** The ones of `ids` that are workspaces of the organization. */
export async function workspacesAmong(db: Knex, organization: number, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  return (await db("workspaces").where("organization_id", organization).whereIn("id", ids).pluck("id")).map(Number);
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

/** The groups assigned to the workspace, by name. */
export async function groupsOfWorkspace(db: Knex, organization: number, workspaceId: number): Promise<GroupRow[]> {
  return listGroups(db, organization, { workspace: workspaceId });
}

/** Whether the user is an active member of the workspace; with the workspace's organization. */
export async function workspaceOfMember(db: Knex, workspaceId: number, userId: number): Promise<{ organization: number } | undefined> {
  const raw = await db("workspace_users as wu")
    .join("workspaces as w", "w.id", "wu.workspace_id")
    .where({ "wu.workspace_id": workspaceId, "wu.user_id": userId, "wu.active": true })
    .first("w.organization_id");
  return raw ? { organization: Number(raw.organization_id) } : undefined;
}
