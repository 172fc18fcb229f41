import { idBinding, readId, readIdOrNull } from "../../../lib/ids.js";
import { EFFECTIVE_ADMIN, memberships } from "../workspaces/store.js";
import { isPaid } from "../organizations/plan.js";
import { dbDate as toDate, type Knex } from "../../../lib/db.js";

export interface UserRow {
  id: bigint;
  email: string;
  password_hash: string;
  api_token_hash: string;
  /** The API token sealed with the service's SecretBox; null for users from before it was kept. */
  api_token_sealed: string | null;
  fullname: string;
  timezone: string;
  default_workspace_id: bigint | null;
  beginning_of_week: number;
  country_id: bigint | null;
  created_at: Date;
  updated_at: Date;
  closed_at: Date | null;
}

/** A password reset code as kept: its hash, whose it is, until when it works. */
export interface PasswordResetRow {
  code_hash: string;
  user_id: bigint;
  created_at: Date;
  expires_at: Date;
  used_at: Date | null;
}

/** An API token as kept: its hash to find the user by, and the token sealed for its owner to read. */
export interface StoredApiToken {
  hash: string;
  sealed: string;
}

/** The workspace settings other services enforce (WorkspaceRules), as stored. */
export const WORKSPACE_RULE_COLUMNS = [
  "only_admins_may_create_projects",
  "only_admins_may_create_tags",
  "only_admins_see_billable_rates",
  "projects_billable_by_default",
  "projects_private_by_default",
  "projects_enforce_billable",
  "default_currency",
  "default_hourly_rate",
  "te_constraints_enabled",
  "te_description_present",
  "te_project_present",
  "te_tag_present",
  "te_task_present",
] as const;

export type WorkspaceAccessRow = {
  organization_id: bigint;
  /** The workspace's organization is paid. */
  premium: boolean;
  admin: number | boolean;
  role: string;
  /** The workspace's "Lock Time Entries" date, when it has one. */
  report_locked_at: Date | string | null;
} & Record<(typeof WORKSPACE_RULE_COLUMNS)[number], unknown>;


function userRow(row: UserRow | undefined): UserRow | undefined {
  if (!row) return undefined;
  return {
    ...row,
    id: readId(row.id),
    default_workspace_id: readIdOrNull(row.default_workspace_id),
    country_id: readIdOrNull(row.country_id),
    created_at: toDate(row.created_at),
    updated_at: toDate(row.updated_at),
    closed_at: row.closed_at ? toDate(row.closed_at) : null,
  };
}

/** The accounts schema's queries. */
export class AccountsStore {
  constructor(readonly db: Knex) {}

  async userById(id: bigint, trx: Knex = this.db): Promise<UserRow | undefined> {
    return userRow(await trx<UserRow>("users").where({ id }).first());
  }

  async userByEmail(email: string): Promise<UserRow | undefined> {
    return userRow(await this.db<UserRow>("users").where({ email: email.toLowerCase() }).first());
  }

  async userByApiTokenHash(hash: string): Promise<UserRow | undefined> {
    return userRow(await this.db<UserRow>("users").where({ api_token_hash: hash }).first());
  }

  async userIdBySession(tokenHash: string, now: Date): Promise<bigint | undefined> {
    const row = await this.db("sessions").where({ token_hash: tokenHash }).andWhere("expires_at", ">", now).first("user_id");
    return row ? readId(row.user_id) : undefined;
  }

  /** Creates a user with an organization and a workspace it owns and administers. */
  async createUserWithWorkspace(
    trx: Knex.Transaction,
    user: { email: string; passwordHash: string; apiToken: StoredApiToken; fullname: string; timezone: string },
    now: Date,
  ): Promise<bigint> {
    const [userId] = await trx("users").insert({
      email: user.email.toLowerCase(),
      password_hash: user.passwordHash,
      api_token_hash: user.apiToken.hash,
      api_token_sealed: user.apiToken.sealed,
      fullname: user.fullname,
      timezone: user.timezone,
      created_at: now,
      updated_at: now,
    });
    const [organizationId] = await trx("organizations").insert({
      name: `${user.fullname}'s organization`.slice(0, 140),
      owner_id: userId,
      created_at: now,
      updated_at: now,
    });
    await trx("organization_users").insert({ organization_id: organizationId, user_id: userId, admin: true, owner: true });
    const [workspaceId] = await trx("workspaces").insert({
      organization_id: organizationId,
      name: `${user.fullname}'s workspace`.slice(0, 140),
      created_at: now,
      updated_at: now,
    });
    await trx("workspace_users").insert({ workspace_id: workspaceId, user_id: userId, admin: true, role: "admin" });
    await trx("users").where({ id: userId }).update({ default_workspace_id: workspaceId });
    return readId(userId);
  }

  async createSession(tokenHash: string, userId: bigint, now: Date, expiresAt: Date): Promise<void> {
    await this.db("sessions").insert({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt });
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db("sessions").where({ token_hash: tokenHash }).delete();
  }

  async setApiToken(userId: bigint, token: StoredApiToken, now: Date): Promise<void> {
    await this.db("users").where({ id: userId }).update({ api_token_hash: token.hash, api_token_sealed: token.sealed, updated_at: now });
  }

  async workspaceAccess(userId: bigint, workspaceId: bigint): Promise<WorkspaceAccessRow | undefined> {
    const raw = await memberships(this.db)
      .where({ "wu.user_id": userId, "wu.workspace_id": workspaceId, "wu.active": true })
      // The workspace's lock date is one of its preferences (workspace-preferences/).
      .leftJoin("workspace_preferences as wp", "wp.workspace_id", "w.id")
      .first("w.organization_id", "o.pricing_plan_id", this.db.raw(`${EFFECTIVE_ADMIN} as admin`), "wu.role", "wp.report_locked_at", ...WORKSPACE_RULE_COLUMNS.map((c) => `w.${c}`));
    return raw ? { ...raw, organization_id: readId(raw.organization_id), premium: isPaid({ pricing_plan_id: Number(raw.pricing_plan_id) }), admin: Boolean(Number(raw.admin)), role: Number(raw.admin) ? "admin" : raw.role } : undefined;
  }

  /** The ids of the workspaces the user is an active member of. */
  async activeWorkspaceIds(userId: bigint): Promise<bigint[]> {
    return (await this.db("workspace_users").where({ user_id: userId, active: true }).orderBy("workspace_id").pluck("workspace_id")).map(readId);
  }

  /** Changes a user row in a change's transaction. */
  async updateUser(trx: Knex.Transaction, userId: bigint, changes: Partial<Omit<UserRow, "id">>): Promise<void> {
    await trx("users").where({ id: userId }).update(changes);
  }

  /** Ends the user's sessions, but for the one whose hash is `keep` (the caller's own). */
  async deleteSessionsOf(trx: Knex.Transaction, userId: bigint, keep?: string): Promise<void> {
    const q = trx("sessions").where({ user_id: userId });
    if (keep) q.andWhereNot({ token_hash: keep });
    await q.delete();
  }

  async isActiveMember(db: Knex, userId: bigint, workspaceId: bigint): Promise<boolean> {
    return Boolean(await db("workspace_users").where({ user_id: userId, workspace_id: workspaceId, active: true }).first("id"));
  }

  async insertPasswordReset(trx: Knex.Transaction, row: PasswordResetRow): Promise<void> {
    await trx("password_resets").insert(row);
  }

  /** Reset codes made for the user since `since` (the request limit counts them). */
  async resetsSince(trx: Knex.Transaction, userId: bigint, since: Date): Promise<number> {
    const [{ n }] = await trx("password_resets").where({ user_id: userId }).andWhere("created_at", ">", since).count({ n: "*" });
    return Number(n);
  }

  /** The reset code of that hash, locked for its one use. */
  async passwordResetForUse(trx: Knex.Transaction, codeHash: string): Promise<PasswordResetRow | undefined> {
    const row = await trx("password_resets").where({ code_hash: codeHash }).first().forUpdate();
    if (!row) return undefined;
    return { ...row, user_id: readId(row.user_id), created_at: toDate(row.created_at), expires_at: toDate(row.expires_at), used_at: row.used_at ? toDate(row.used_at) : null };
  }

  /** Every open code of the user is used up (a reset ends the others too); old ones go. */
  async usePasswordResets(trx: Knex.Transaction, userId: bigint, now: Date): Promise<void> {
    await trx("password_resets").where({ user_id: userId }).whereNull("used_at").update({ used_at: now });
    await trx("password_resets").where("expires_at", "<", new Date(now.getTime() - 24 * 3600_000)).delete();
  }

  /** Names of the organizations the user owns that have other members (they must be handed over first). */
  async ownedOrganizationsWithOthers(db: Knex, userId: bigint): Promise<string[]> {
    return db("organizations as o")
      .join("organization_users as ou", "ou.organization_id", "o.id")
      .where({ "o.owner_id": userId })
      .andWhereNot({ "ou.user_id": userId })
      .distinct("o.name")
      .pluck("o.name");
  }

  /**
   * Closes an account in a change: the organizations it owns alone go with their workspaces, its
   * other memberships and its sessions end, and its credentials are replaced by ones nobody has
   * (the e-mail freed for a new sign-up). The row stays, for what refers to the user.
   */
  async closeAccount(trx: Knex.Transaction, userId: bigint, replacement: { email: string; apiTokenHash: string }, now: Date): Promise<void> {
    const owned: bigint[] = (await trx("organizations").where({ owner_id: userId }).pluck("id")).map(readId);
    if (owned.length) {
      const ownedWorkspaces = (await trx("workspaces").whereIn("organization_id", owned.map(idBinding)).pluck("id")).map(readId);
      if (ownedWorkspaces.length) await trx("workspace_users").whereIn("workspace_id", ownedWorkspaces.map(idBinding)).delete();
      await trx("workspaces").whereIn("organization_id", owned.map(idBinding)).delete();
      await trx("organization_users").whereIn("organization_id", owned.map(idBinding)).delete();
      await trx("organizations").whereIn("id", owned.map(idBinding)).delete();
    }
    await trx("workspace_users").where({ user_id: userId }).delete();
    await trx("organization_users").where({ user_id: userId }).delete();
    await trx("sessions").where({ user_id: userId }).delete();
    await trx("password_resets").where({ user_id: userId }).delete();
    await trx("users").where({ id: userId }).update({
      email: replacement.email,
      password_hash: "closed",
      api_token_hash: replacement.apiTokenHash,
      api_token_sealed: null,
      default_workspace_id: null,
      closed_at: now,
      updated_at: now,
    });
  }
}
