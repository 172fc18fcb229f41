import { dbDate as toDate, isMysql, type Knex } from "../../lib/db.js";
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
  private readonly mysql: boolean;

  constructor(private readonly db: Knex) {
    this.mysql = isMysql(db);
  }

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
   * The client as it stands now, in a change's transaction, locked until it commits (MySQL;
   * SQLite runs one transaction at a time). A plain read in a MySQL transaction answers from
   * the snapshot of its first read: a change that waited for a concurrent one would answer the
   * client as it was before that one.
   */
  async getForChange(trx: Knex.Transaction, workspaceId: number, id: number): Promise<ClientRow | undefined> {
    const q = trx("clients").where({ workspace_id: workspaceId, id }).first();
    if (this.mysql) q.forUpdate();
    return clientRow(await q);
  }

  async insert(trx: Knex.Transaction, row: Omit<ClientRow, "id">): Promise<ClientRow> {
    const [id] = await trx("clients").insert(row);
    return (await this.getForChange(trx, row.workspace_id, Number(id)))!;
  }

  async update(trx: Knex.Transaction, workspaceId: number, id: number, changes: Partial<ClientRow>): Promise<ClientRow | undefined> {
    await trx("clients").where({ workspace_id: workspaceId, id }).update(changes);
    return this.getForChange(trx, workspaceId, id);
  }

  async delete(trx: Knex.Transaction, workspaceId: number, id: number): Promise<number> {
    return trx("clients").where({ workspace_id: workspaceId, id }).delete();
  }
}
