import type { Knex } from "../../../lib/db.js";

/** What checking a key needs of its stored row (active keys only). */
export interface ApiKeyRow {
  workspace_id: string;
  secret_hash: string;
}

/** Hiring workspaces: the scope of every hiring table. */
export const workspaces = {
  async create(trx: Knex.Transaction, id: string, name: string, now: Date): Promise<void> {
    await trx("workspaces").insert({ id, name, created_at: now });
  },

  async exists(db: Knex, id: string): Promise<boolean> {
    return Boolean(await db("workspaces").where({ id }).first("id"));
  },
};

/** A workspace's API keys; only the SHA-256 of the secret is stored. */
export const apiKeys = {
  async insert(db: Knex, key: { id: string; workspace_id: string; secret_hash: string; created_at: Date }): Promise<void> {
    await db("api_keys").insert(key);
  },

  /** An active (not revoked) key's row. */
  async active(db: Knex, id: string): Promise<ApiKeyRow | undefined> {
    return db("api_keys").where({ id }).whereNull("revoked_at").first("workspace_id", "secret_hash");
  },

  /** The number of keys revoked: 0 when the key is unknown or was revoked already. */
  async revoke(db: Knex, id: string, now: Date): Promise<number> {
    return db("api_keys").where({ id }).whereNull("revoked_at").update({ revoked_at: now });
  },
};
