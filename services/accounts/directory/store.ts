import { dbDate, type Knex } from "../../../lib/db.js";
import { likePattern } from "../../../lib/scoped-table.js";
import { invitations, type InvitationRow } from "../invitations/store.js";

/** What the directory answers of an account (never its credentials). */
export interface VisibleUser {
  id: number;
  email: string;
  fullname: string;
  timezone: string;
  default_workspace_id: number | null;
  beginning_of_week: number;
  country_id: number | null;
  created_at: Date;
  updated_at: Date;
}

/** The most users a search answers. */
export const SEARCH_LIMIT = 100;

/**
 * The accounts the caller may see: the caller, and the joined users (deactivated ones too) of
 * every organization the caller is a joined, active member of. Invited users who have not joined
 * are not shown: joining is what makes someone a colleague. Closed accounts are never shown.
 */
function visibleTo(db: Knex, caller: number): Knex.QueryBuilder {
  const callersOrganizations = db("organization_users").where({ user_id: caller, joined: true, inactive: false }).select("organization_id");
  return db("users as u")
    .whereNull("u.closed_at")
    .andWhere((w) =>
      w.where("u.id", caller).orWhereExists((e) =>
        e.select(db.raw("1")).from("organization_users as ou").whereRaw("ou.user_id = u.id").andWhere("ou.joined", true).whereIn("ou.organization_id", callersOrganizations),
      ),
    );
}

const USER_COLUMNS = ["u.id", "u.email", "u.fullname", "u.timezone", "u.default_workspace_id", "u.beginning_of_week", "u.country_id", "u.created_at", "u.updated_at"];

function visibleUser(raw: Record<string, unknown>): VisibleUser {
  return {
    id: Number(raw.id),
    email: String(raw.email),
    fullname: String(raw.fullname),
    timezone: String(raw.timezone),
    default_workspace_id: raw.default_workspace_id === null ? null : Number(raw.default_workspace_id),
    beginning_of_week: Number(raw.beginning_of_week),
    country_id: raw.country_id === null || raw.country_id === undefined ? null : Number(raw.country_id),
    created_at: dbDate(raw.created_at as Date),
    updated_at: dbDate(raw.updated_at as Date),
  };
}

/** The visible users whose name or e-mail contains the term (ignoring case), by name then id. */
export async function searchUsers(db: Knex, caller: number, term: string): Promise<VisibleUser[]> {
  const pattern = likePattern(term);
  const raws: Record<string, unknown>[] = await visibleTo(db, caller)
    .andWhere((w) => w.whereRaw("LOWER(u.fullname) LIKE ? ESCAPE '!'", [pattern]).orWhereRaw("LOWER(u.email) LIKE ? ESCAPE '!'", [pattern]))
    .orderByRaw("LOWER(u.fullname)")
    .orderBy("u.id")
    .limit(SEARCH_LIMIT)
    .select(USER_COLUMNS);
  return raws.map(visibleUser);
}

/** The user, if the caller may see it. */
export async function userVisibleTo(db: Knex, caller: number, userId: number): Promise<VisibleUser | undefined> {
  const raw = await visibleTo(db, caller).andWhere("u.id", userId).first(USER_COLUMNS);
  return raw ? visibleUser(raw) : undefined;
}

export interface OwnerRow {
  organization_user_id: number;
  organization_id: number;
  user_id: number;
  fullname: string;
  email: string;
  created_at: Date | null;
  updated_at: Date | null;
}

/** The organization's owner with its account. */
export async function ownerOf(db: Knex, organization: number): Promise<OwnerRow | undefined> {
  const raw = await db("organization_users as ou")
    .join("users as u", "u.id", "ou.user_id")
    .where({ "ou.organization_id": organization, "ou.owner": true })
    .first("ou.id", "ou.organization_id", "ou.user_id", "u.fullname", "u.email", "ou.created_at", "ou.updated_at");
  if (!raw) return undefined;
  return {
    organization_user_id: Number(raw.id),
    organization_id: Number(raw.organization_id),
    user_id: Number(raw.user_id),
    fullname: String(raw.fullname),
    email: String(raw.email),
    created_at: raw.created_at ? dbDate(raw.created_at) : null,
    updated_at: raw.updated_at ? dbDate(raw.updated_at) : null,
  };
}

/** A pending invitation of that code hash, whichever organization it is of. */
export async function pendingInvitation(db: Knex, codeHash: string): Promise<InvitationRow | undefined> {
  const raw = await db(invitations.table).where({ code_hash: codeHash, state: "pending" }).first();
  return raw ? invitations.read(raw) : undefined;
}

/** Names of workspaces of the organization, by id. */
export async function workspaceNames(db: Knex, organization: number, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows: { id: number; name: string }[] = await db("workspaces").where({ organization_id: organization }).whereIn("id", ids).select("id", "name");
  return new Map(rows.map((r) => [Number(r.id), String(r.name)]));
}

/** The default currency of each workspace. */
export async function workspaceCurrencies(db: Knex, ids: number[]): Promise<Map<number, string>> {
  if (ids.length === 0) return new Map();
  const rows: { id: number; default_currency: string }[] = await db("workspaces").whereIn("id", ids).select("id", "default_currency");
  return new Map(rows.map((r) => [Number(r.id), String(r.default_currency)]));
}

/** For each of the organization's groups of these users, the workspaces it is assigned to. */
export async function groupWorkspaces(db: Knex, groupIds: number[]): Promise<{ group_id: number; workspace_id: number }[]> {
  if (groupIds.length === 0) return [];
  const rows: { group_id: number; workspace_id: number }[] = await db("group_workspaces").whereIn("group_id", groupIds).select("group_id", "workspace_id");
  return rows.map((r) => ({ group_id: Number(r.group_id), workspace_id: Number(r.workspace_id) }));
}

/** The organization's name and the sender's account, as an invitation by code shows them. */
export async function invitationParties(db: Knex, invitation: InvitationRow): Promise<{ organizationName: string; senderName: string; senderEmail: string }> {
  const organization = await db("organizations").where({ id: invitation.organization_id }).first("name");
  const sender = await db("users").where({ id: invitation.sender_id }).first("fullname", "email");
  return { organizationName: organization ? String(organization.name) : "", senderName: sender ? String(sender.fullname) : "", senderEmail: sender ? String(sender.email) : "" };
}
