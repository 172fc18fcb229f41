import { dbDate as toDate, type Knex } from "../../lib/db.js";
import type { ClientStatus } from "./clients.js";

export interface ClientRow {
  id: number;
  workspace_id: number;
  name: string;
  notes: string | null;
  archived: boolean;
  creator_id: number;
  created_at: Date;
  at: Date;
}


function clientRow(row: Record<string, unknown> | undefined): ClientRow | undefined {
  if (!row) return undefined;
  return {
    id: Number(row.id),
    workspace_id: Number(row.workspace_id),
    name: row.name as string,
    notes: (row.notes as string | null) ?? null,
    archived: Boolean(row.archived),
    creator_id: Number(row.creator_id),
    created_at: toDate(row.created_at as Date),
    at: toDate(row.at as Date),
  };
}

/** The tracking schema's queries for clients. */
export class ClientsStore {
  constructor(private readonly db: Knex) {}

  async list(workspaceId: number, status: ClientStatus, nameContains: string): Promise<ClientRow[]> {
    const q = this.db("clients").where({ workspace_id: workspaceId });
    if (status === "active") q.andWhere({ archived: false });
    if (status === "archived") q.andWhere({ archived: true });
    if (nameContains) {
      const escaped = nameContains.toLowerCase().replace(/[!%_]/g, (c) => `!${c}`);
      q.andWhereRaw("LOWER(name) LIKE ? ESCAPE '!'", [`%${escaped}%`]);
    }
    const rows = await q.orderByRaw("LOWER(name)").orderBy("id");
    return rows.map((r) => clientRow(r)!);
  }

  async get(workspaceId: number, id: number): Promise<ClientRow | undefined> {
    return clientRow(await this.db("clients").where({ workspace_id: workspaceId, id }).first());
  }

  /**
   * The client as it stands now, in a change's transaction, locked until it commits (SELECT
   * ... FOR UPDATE; knex leaves it out on SQLite, which runs one transaction at a time). A
   * plain read in a MySQL transaction answers from the snapshot of its first read: a change
   * that waited for a concurrent one would see the client as it was before that one.
   */
  async getForChange(trx: Knex.Transaction, workspaceId: number, id: number): Promise<ClientRow | undefined> {
    return clientRow(await trx("clients").where({ workspace_id: workspaceId, id }).first().forUpdate());
  }

  async insert(trx: Knex.Transaction, row: Omit<ClientRow, "id">): Promise<ClientRow> {
    const [id] = await trx("clients").insert(row);
    return { ...row, id: Number(id) };
  }

  /** Changes a client read with getForChange; answers it as it stands after the change. */
  async update(trx: Knex.Transaction, existing: ClientRow, changes: Partial<ClientRow>): Promise<ClientRow> {
    await trx("clients").where({ workspace_id: existing.workspace_id, id: existing.id }).update(changes);
    return { ...existing, ...changes };
  }

  async delete(trx: Knex.Transaction, workspaceId: number, id: number): Promise<number> {
    return trx("clients").where({ workspace_id: workspaceId, id }).delete();
  }
}
