import { dbDate as toDate, type Knex } from "../../../lib/db.js";

export interface UserRow {
  id: number;
  email: string;
  password_hash: string;
  api_token_hash: string;
  /** The API token sealed with the service's SecretBox; null for users from before it was kept. */
  api_token_sealed: string | null;
  fullname: string;
  timezone: string;
  default_workspace_id: number | null;
  beginning_of_week: number;
  created_at: Date;
  updated_at: Date;
}

/** An API token as kept: its hash to find the user by, and the token sealed for its owner to read. */
export interface StoredApiToken {
  hash: string;
  sealed: string;
}

export interface WorkspaceAccessRow {
  organization_id: number;
  premium: number | boolean;
  admin: number | boolean;
  role: string;
}


function userRow(row: UserRow | undefined): UserRow | undefined {
  if (!row) return undefined;
  return { ...row, id: Number(row.id), created_at: toDate(row.created_at), updated_at: toDate(row.updated_at) };
}

/** The accounts schema's queries. */
export class AccountsStore {
  constructor(readonly db: Knex) {}

  async userById(id: number, trx: Knex = this.db): Promise<UserRow | undefined> {
    return userRow(await trx<UserRow>("users").where({ id }).first());
  }

  async userByEmail(email: string): Promise<UserRow | undefined> {
    return userRow(await this.db<UserRow>("users").where({ email: email.toLowerCase() }).first());
  }

  async userByApiTokenHash(hash: string): Promise<UserRow | undefined> {
    return userRow(await this.db<UserRow>("users").where({ api_token_hash: hash }).first());
  }

  async userIdBySession(tokenHash: string, now: Date): Promise<number | undefined> {
    const row = await this.db("sessions").where({ token_hash: tokenHash }).andWhere("expires_at", ">", now).first("user_id");
    return row ? Number(row.user_id) : undefined;
  }

  /** Creates a user with an organization and a workspace it owns and administers. */
  async createUserWithWorkspace(
    trx: Knex.Transaction,
    user: { email: string; passwordHash: string; apiToken: StoredApiToken; fullname: string; timezone: string },
    now: Date,
  ): Promise<number> {
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
    return Number(userId);
  }

  async createSession(tokenHash: string, userId: number, now: Date, expiresAt: Date): Promise<void> {
    await this.db("sessions").insert({ token_hash: tokenHash, user_id: userId, created_at: now, expires_at: expiresAt });
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.db("sessions").where({ token_hash: tokenHash }).delete();
  }

  async setApiToken(userId: number, token: StoredApiToken, now: Date): Promise<void> {
    await this.db("users").where({ id: userId }).update({ api_token_hash: token.hash, api_token_sealed: token.sealed, updated_at: now });
  }

  async workspaceAccess(userId: number, workspaceId: number): Promise<WorkspaceAccessRow | undefined> {
    return this.db("workspace_users as wu")
      .join("workspaces as w", "w.id", "wu.workspace_id")
      .where({ "wu.user_id": userId, "wu.workspace_id": workspaceId, "wu.active": true })
      .first("w.organization_id", "w.premium", "wu.admin", "wu.role");
  }

  async setWorkspacePremium(workspaceId: number, premium: boolean, now: Date): Promise<number> {
    return this.db("workspaces").where({ id: workspaceId }).update({ premium, updated_at: now });
  }
}
