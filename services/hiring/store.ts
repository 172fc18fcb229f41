import { dbDate, type Knex } from "../../lib/db.js";

export interface OpeningRow {
  workspace_id: string;
  id: string;
  name: string;
  slug: string;
  created_at: Date;
  published_at: Date | null;
  closed_at: Date | null;
  /** JSON array of {id, name, slug}. */
  tests: string;
}

function openingRow(row: Record<string, unknown>): OpeningRow {
  return {
    ...(row as unknown as OpeningRow),
    created_at: dbDate(row.created_at as Date),
    published_at: row.published_at == null ? null : dbDate(row.published_at as Date),
    closed_at: row.closed_at == null ? null : dbDate(row.closed_at as Date),
  };
}

/** The hiring schema's queries. */
export class HiringStore {
  constructor(private readonly db: Knex) {}

  async createWorkspace(trx: Knex.Transaction, id: string, name: string, now: Date): Promise<void> {
    await trx("workspaces").insert({ id, name, created_at: now });
  }

  async workspaceExists(id: string): Promise<boolean> {
    return Boolean(await this.db("workspaces").where({ id }).first("id"));
  }

  async insertApiKey(trx: Knex, key: { id: string; workspace_id: string; secret_hash: string; created_at: Date }): Promise<void> {
    await trx("api_keys").insert(key);
  }

  async apiKey(id: string): Promise<{ workspace_id: string; secret_hash: string } | undefined> {
    return this.db("api_keys").where({ id }).whereNull("revoked_at").first("workspace_id", "secret_hash");
  }

  async revokeApiKey(id: string, now: Date): Promise<number> {
    return this.db("api_keys").where({ id }).whereNull("revoked_at").update({ revoked_at: now });
  }

  async upsertOpening(trx: Knex.Transaction, row: OpeningRow): Promise<void> {
    await trx("openings").insert(row).onConflict(["workspace_id", "id"]).merge();
  }

  async openings(workspaceId: string): Promise<OpeningRow[]> {
    const rows = await this.db("openings").where({ workspace_id: workspaceId }).orderBy("created_at").orderBy("id");
    return rows.map(openingRow);
  }

  async opening(workspaceId: string, id: string): Promise<OpeningRow | undefined> {
    const row = await this.db("openings").where({ workspace_id: workspaceId, id }).first();
    return row ? openingRow(row) : undefined;
  }
}
