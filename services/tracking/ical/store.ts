import type { Knex } from "../../../lib/db.js";
import { idBinding } from "../../../lib/ids.js";
import { ScopedTable } from "../../../lib/scoped-table.js";

export interface IcalFeedRow {
  id: bigint;
  workspace_id: bigint;
  user_id: bigint;
  token_hash: string;
  enabled: boolean;
  created_at: Date;
  at: Date;
}

/** A workspace's calendar links, one per member who made one. */
export const icalFeeds = new ScopedTable<IcalFeedRow>({
  table: "ical_feeds",
  scope: "workspace_id",
  columns: { id: "id", workspace_id: "id", user_id: "id", token_hash: "string", enabled: "boolean", created_at: "date", at: "date" },
  order: ["id"],
});

/** The member's link in the workspace, locked for the change. */
export async function memberFeedForChange(trx: Knex.Transaction, workspace: bigint, userId: bigint): Promise<IcalFeedRow | undefined> {
  const raw = await icalFeeds.query(trx, workspace).where("user_id", idBinding(userId)).forUpdate().first();
  return raw ? icalFeeds.read(raw) : undefined;
}

/** The link a token's hash names, in any workspace. */
export async function feedByHash(db: Knex, tokenHash: string): Promise<IcalFeedRow | undefined> {
  const raw = await db(icalFeeds.table).where("token_hash", tokenHash).first();
  return raw ? icalFeeds.read(raw) : undefined;
}
