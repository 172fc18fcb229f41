import { idBinding, readId, readIdOrNull } from "../../../lib/ids.js";
import { dbDate, type Knex } from "../../../lib/db.js";
import { likePattern } from "../../../lib/scoped-table.js";
import { invitations, type InvitationRow } from "../invitations/store.js";

/** What the directory answers of an account (never its credentials). */
export interface VisibleUser {
  id: bigint;
  email: string;
  fullname: string;
  timezone: string;
  default_workspace_id: bigint | null;
  beginning_of_week: number;
  country_id: bigint | null;
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
function visibleTo(db: Knex, caller: bigint): Knex.QueryBuilder {
  const callersOrganizations = db("organization_users").where({ user_id: caller, joined: true, inactive: false }).select("organization_id");
  return db("users as u")
    .whereNull("u.closed_at")
    .andWhere((w) =>
      w.where("u.id", idBinding(caller)).orWhereExists((e) =>
        e.select(db.raw("1")).from("organization_users as ou").whereRaw("ou.user_id = u.id").andWhere("ou.joined", true).whereIn("ou.organization_id", callersOrganizations),
      ),
    );
}

const USER_COLUMNS = ["u.id", "u.email", "u.fullname", "u.timezone", "u.default_workspace_id", "u.beginning_of_week", "u.country_id", "u.created_at", "u.updated_at"];

function visibleUser(raw: Record<string, unknown>): VisibleUser {
  return {
    id: readId(raw.id),
    email: String(raw.email),
    fullname: String(raw.fullname),
    timezone: String(raw.timezone),
    default_workspace_id: readIdOrNull(raw.default_workspace_id),
    beginning_of_week: Number(raw.beginning_of_week),
    country_id: readIdOrNull(raw.country_id),
    created_at: dbDate(raw.created_at as Date),
    updated_at: dbDate(raw.updated_at as Date),
  };
}

/** The visible users whose name or e-mail contains the term (ignoring case), by name then id. */
export async function searchUsers(db: Knex, caller: bigint, term: string): Promise<VisibleUser[]> {
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
export async function userVisibleTo(db: Knex, caller: bigint, userId: bigint): Promise<VisibleUser | undefined> {
  const raw = await visibleTo(db, caller).andWhere("u.id", idBinding(userId)).first(USER_COLUMNS);
  return raw ? visibleUser(raw) : undefined;
}

export interface OwnerRow {
  organization_user_id: bigint;
  organization_id: bigint;
  user_id: bigint;
  fullname: string;
  email: string;
  created_at: Date | null;
  updated_at: Date | null;
}

/** The organization's owner with its account. */
export async function ownerOf(db: Knex, organization: bigint): Promise<OwnerRow | undefined> {
  const raw = await db("organization_users as ou")
    .join("users as u", "u.id", "ou.user_id")
    .where({ "ou.organization_id": organization, "ou.owner": true })
    .first("ou.id", "ou.organization_id", "ou.user_id", "u.fullname", "u.email", "ou.created_at", "ou.updated_at");
  if (!raw) return undefined;
  return {
    organization_user_id: readId(raw.id),
    organization_id: readId(raw.organization_id),
    user_id: readId(raw.user_id),
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
export async function workspaceNames(db: Knex, organization: bigint, ids: bigint[]): Promise<Map<bigint, string>> {
  if (ids.length === 0) return new Map();
  const rows: { id: unknown; name: string }[] = await db("workspaces").where({ organization_id: organization }).whereIn("id", ids.map(idBinding)).select("id", "name");
  return new Map(rows.map((r) => [readId(r.id), String(r.name)]));
}

/** The default currency of each workspace. */
export async function workspaceCurrencies(db: Knex, ids: bigint[]): Promise<Map<bigint, string>> {
  if (ids.length === 0) return new Map();
  const rows: { id: unknown; default_currency: string }[] = await db("workspaces").whereIn("id", ids.map(idBinding)).select("id", "default_currency");
  return new Map(rows.map((r) => [readId(r.id), String(r.default_currency)]));
}

/** For each of the organization's groups of these users, the workspaces it is assigned to. */
export async function groupWorkspaces(db: Knex, groupIds: bigint[]): Promise<{ group_id: bigint; workspace_id: bigint }[]> {
  if (groupIds.length === 0) return [];
  const rows: { group_id: unknown; workspace_id: unknown }[] = await db("group_workspaces").whereIn("group_id", groupIds.map(idBinding)).select("group_id", "workspace_id");
  return rows.map((r) => ({ group_id: readId(r.group_id), workspace_id: readId(r.workspace_id) }));
}

/** The organization's name and the sender's account, as an invitation by code shows them. */
export async function invitationParties(db: Knex, invitation: InvitationRow): Promise<{ organizationName: string; senderName: string; senderEmail: string }> {
  const organization = await db("organizations").where({ id: invitation.organization_id }).first("name");
  const sender = await db("users").where({ id: invitation.sender_id }).first("fullname", "email");
  return { organizationName: organization ? String(organization.name) : "", senderName: sender ? String(sender.fullname) : "", senderEmail: sender ? String(sender.email) : "" };
}
