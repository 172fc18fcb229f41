import { idBinding, readId } from "../../../lib/ids.js";
import type { Knex } from "../../../lib/db.js";
import { ScopedTable, likePattern } from "../../../lib/scoped-table.js";

export interface GroupRow {
  id: bigint;
  organization_id: bigint;
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
  group_id: bigint;
  user_id: bigint;
  name: string;
  joined: boolean;
}

/** A group with its users (of the organization still) and workspaces (of the organization still). */
export interface GroupView {
  group: GroupRow;
  users: GroupMember[];
  workspaces: bigint[];
}

/** The organization's groups as the list asks: name contains, assigned to a workspace; by name. */
export async function listGroups(db: Knex, organization: bigint, filter: { name?: string; workspace?: bigint } = {}): Promise<GroupRow[]> {
  const q = groups.query(db, organization);
  if (filter.name) q.andWhereRaw(`LOWER(name) LIKE ? ESCAPE '!'`, [likePattern(filter.name)]);
  if (filter.workspace !== undefined) {
    const workspace = filter.workspace;
    q.whereExists((e) => e.select(db.raw("1")).from("group_workspaces as gw").whereRaw("gw.group_id = groups.id").andWhere("gw.workspace_id", idBinding(workspace)));
  }
  return (await q.orderByRaw("LOWER(name)").orderBy("id")).map((raw: Record<string, unknown>) => groups.read(raw));
}

/** The groups with their users and workspaces. */
export async function viewsOf(db: Knex, organization: bigint, rows: GroupRow[]): Promise<GroupView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((g) => g.id);
  const users: Record<string, unknown>[] = await db("group_users as gu")
    .join("organization_users as ou", function () {
      this.on("ou.user_id", "gu.user_id").andOn("ou.organization_id", db.raw("?", [idBinding(organization)]));
    })
    .join("users as u", "u.id", "gu.user_id")
    .whereIn("gu.group_id", ids.map(idBinding))
    .orderByRaw("LOWER(u.fullname)")
    .orderBy("gu.user_id")
    .select("gu.group_id", "gu.user_id", "u.fullname", "ou.joined");
  const spaces: Record<string, unknown>[] = await db("group_workspaces as gw")
    .join("workspaces as w", "w.id", "gw.workspace_id")
    .where("w.organization_id", idBinding(organization))
    .whereIn("gw.group_id", ids.map(idBinding))
    .orderBy("gw.workspace_id")
    .select("gw.group_id", "gw.workspace_id");
  return rows.map((group) => ({
    group,
    users: users
      .filter((u) => readId(u.group_id) === group.id)
      .map((u) => ({ group_id: group.id, user_id: readId(u.user_id), name: String(u.fullname), joined: Boolean(u.joined) })),
    workspaces: spaces.filter((w) => readId(w.group_id) === group.id).map((w) => readId(w.workspace_id)),
  }));
}

/** The organization's group of this name (ignoring case), other than `except`. */
export async function groupNamed(db: Knex, organization: bigint, name: string, except?: bigint): Promise<GroupRow | undefined> {
  const q = groups.query(db, organization).andWhereRaw("LOWER(name) = ?", [name.toLowerCase()]);
  if (except !== undefined) q.andWhereNot("id", idBinding(except));
  const raw = await q.first();
  return raw ? groups.read(raw) : undefined;
}

/** The ones of `ids` that are users (user ids) of the organization. */
export async function usersAmong(db: Knex, organization: bigint, ids: bigint[]): Promise<bigint[]> {
  if (ids.length === 0) return [];
  return (await db("organization_users").where("organization_id", idBinding(organization)).whereIn("user_id", ids.map(idBinding)).pluck("user_id")).map(readId);
}

export type GroupPath = "users" | "workspaces";

const LINKS: Record<GroupPath, { table: string; column: string }> = {
  users: { table: "group_users", column: "user_id" },
  workspaces: { table: "group_workspaces", column: "workspace_id" },
};

/** The ids linked to the group on the path. */
export async function linked(db: Knex, groupId: bigint, path: GroupPath): Promise<bigint[]> {
  const { table, column } = LINKS[path];
  return (await db(table).where("group_id", idBinding(groupId)).orderBy(column).pluck(column)).map(readId);
}

export async function link(trx: Knex.Transaction, groupId: bigint, path: GroupPath, ids: bigint[]): Promise<void> {
  const { table, column } = LINKS[path];
  const have = new Set(await linked(trx, groupId, path));
  const rows = [...new Set(ids)].filter((id) => !have.has(id)).map((id) => ({ group_id: groupId, [column]: id }));
  if (rows.length > 0) await trx(table).insert(rows);
}

export async function unlink(trx: Knex.Transaction, groupId: bigint, path: GroupPath, ids?: bigint[]): Promise<void> {
  const { table, column } = LINKS[path];
  const q = trx(table).where("group_id", idBinding(groupId));
  if (ids) {
    if (ids.length === 0) return;
    q.whereIn(column, ids.map(idBinding));
  }
  await q.delete();
}

/**
 * Assigns the group to the workspace (`add`) or takes it out (`remove`); the group's `at` moves
 * when its workspaces changed. Answers whether they did.
 */
export async function assignToWorkspace(trx: Knex.Transaction, group: GroupRow, workspaceId: bigint, operation: "add" | "remove", now: Date): Promise<boolean> {
  const assigned = (await linked(trx, group.id, "workspaces")).includes(workspaceId);
  if (assigned === (operation === "add")) return false;
  if (operation === "add") await link(trx, group.id, "workspaces", [workspaceId]);
  else await unlink(trx, group.id, "workspaces", [workspaceId]);
  await groups.update(trx, group, { updated_at: now });
  return true;
}

/** Takes the user out of every group of the organization (the user leaves it or is removed). */
export async function leaveGroups(trx: Knex.Transaction, organization: bigint, userId: bigint): Promise<void> {
  await trx("group_users").where("user_id", idBinding(userId)).whereIn("group_id", groups.query(trx, organization).select("id")).delete();
}

/** Deletes the organization's groups with their links (the organization goes). */
export async function deleteGroups(trx: Knex.Transaction, organization: bigint): Promise<void> {
  const ids = (await groups.query(trx, organization).pluck("id")).map(readId);
  if (ids.length === 0) return;
  await trx("group_users").whereIn("group_id", ids.map(idBinding)).delete();
  await trx("group_workspaces").whereIn("group_id", ids.map(idBinding)).delete();
  await groups.query(trx, organization).delete();
}

/** The organization's groups of each of these users (user id -> group ids). */
export async function groupsOfUsers(db: Knex, organization: bigint, userIds: bigint[]): Promise<Map<bigint, bigint[]>> {
  const out = new Map<bigint, bigint[]>();
  if (userIds.length === 0) return out;
  const rows: { user_id: unknown; group_id: unknown }[] = await db("group_users as gu")
    .join("groups as g", "g.id", "gu.group_id")
    .where("g.organization_id", idBinding(organization))
    .whereIn("gu.user_id", userIds.map(idBinding))
    .orderBy("gu.group_id")
    .select("gu.user_id", "gu.group_id");
  for (const row of rows) out.set(readId(row.user_id), [...(out.get(readId(row.user_id)) ?? []), readId(row.group_id)]);
  return out;
}
