import { ScopedTable } from "../../../lib/scoped-table.js";

export interface ClientRow {
  id: bigint;
  workspace_id: bigint;
  name: string;
  notes: string | null;
  archived: boolean;
  creator_id: bigint;
  created_at: Date;
  at: Date;
}

/** A workspace's clients, listed by name ignoring case. */
export const clients = new ScopedTable<ClientRow>({
  table: "clients",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", name: "string", notes: "string?", archived: "boolean", creator_id: "id", created_at: "date", at: "date" },
  order: ["lower(name)", "id"],
});
